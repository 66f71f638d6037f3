#!/usr/bin/env bash
# ROS 1 (Noetic-era packages from Debian bookworm) for the ROS 1 peers of bench/suite and for
# baton_ros1 (src/ros1) and its tests: roscore (rosmaster + rosout), rospy, the roscpp
# headers/libraries, xmlrpcpp (baton_ros1's XML-RPC), the .msg / .srv files of std_msgs /
# geometry_msgs / sensor_msgs / std_srvs (ros-*-msgs, ros-std-srvs: /usr/share/<pkg>/{msg,srv},
# read by baton_ros1 at run time), their Python and C++ message packages, and rostopic / rosnode /
# rosservice / rosparam. Idempotent: packages already installed are skipped. Needs root (apt).
# rospy runs with /usr/bin/python3.
set -euo pipefail
PKGS=(ros-core python3-rospy libroscpp-dev libstd-msgs-dev libxmlrpcpp-dev
  ros-std-msgs ros-geometry-msgs ros-sensor-msgs python3-std-msgs python3-geometry-msgs
  python3-sensor-msgs libgeometry-msgs-dev libsensor-msgs-dev
  ros-std-srvs python3-std-srvs libstd-srvs-dev
  python3-rostopic python3-rosnode python3-rosservice python3-rosparam)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "[install-ros1] all present: ${PKGS[*]}"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "[install-ros1] need root to apt-get install: ${missing[*]}" >&2
  exit 1
fi
# Only the packages apt knows (std_msgs' dev package is named differently across releases).
avail=()
for p in "${missing[@]}"; do
  apt-cache show "$p" >/dev/null 2>&1 && avail+=("$p")
done
if [ ${#avail[@]} -ne ${#missing[@]} ]; then
  apt-get update -qq
  avail=()
  for p in "${missing[@]}"; do
    apt-cache show "$p" >/dev/null 2>&1 && avail+=("$p")
  done
fi
echo "[install-ros1] installing: ${avail[*]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${avail[@]}" >/dev/null
echo "[install-ros1] ok"
