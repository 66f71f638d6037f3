//! Helpers shared by baton-peer-iceoryx2 (ping-pong) and baton-peer-iceoryx2-stream.

pub type Res<T> = Result<T, String>;

/// Parses a byte count with an optional K / KiB / M / MiB suffix.
pub fn parse_u64(s: &str, what: &str) -> Res<u64> {
    let (num, shift) = if let Some(n) = s.strip_suffix("KiB").or_else(|| s.strip_suffix('K')) {
        (n, 10)
    } else if let Some(n) = s.strip_suffix("MiB").or_else(|| s.strip_suffix('M')) {
        (n, 20)
    } else {
        (s, 0)
    };
    num.parse::<u64>()
        .map(|v| v << shift)
        .map_err(|_| format!("bad {what}: '{s}'"))
}

/// CLOCK_MONOTONIC in ns: the clock every bench program stamps with.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Pins the calling thread to one CPU (no-op for a negative cpu); warns if refused.
pub fn pin_to_cpu(cpu: i32, side: &str) {
    if cpu < 0 {
        return;
    }
    unsafe {
        let mut set: libc::cpu_set_t = core::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut set);
        if libc::sched_setaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            eprintln!("warning: could not pin {side} side to CPU {cpu}");
        }
    }
}
