// CYCLONEDDS_URI of every CycloneDDS peer program: loopback only, no multicast, unicast
// discovery on 127.0.0.1 (so runs never leave the machine), automatic participant indices (up
// to 120: the subscriber sweep runs 64 participants at once), and write-history watermarks large
// enough that a 24 MiB sample is never throttled.
#pragma once

#include <string>

namespace baton::bench {

inline std::string cyclone_loopback_config() {
  return "<CycloneDDS><Domain id=\"any\">"
         "<General>"
         "<Interfaces><NetworkInterface address=\"127.0.0.1\"/></Interfaces>"
         "<AllowMulticast>false</AllowMulticast>"
         "</General>"
         "<Discovery>"
         "<Peers><Peer address=\"127.0.0.1\"/></Peers>"
         "<ParticipantIndex>auto</ParticipantIndex>"
         "<MaxAutoParticipantIndex>120</MaxAutoParticipantIndex>"
         "</Discovery>"
         "<Internal><Watermarks>"
         "<WhcHigh>128MB</WhcHigh><WhcHighInit>128MB</WhcHighInit><WhcAdaptive>false</WhcAdaptive>"
         "</Watermarks></Internal>"
         "</Domain></CycloneDDS>";
}

}  // namespace baton::bench
