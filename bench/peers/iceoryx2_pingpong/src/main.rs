//! baton-peer-iceoryx2: ping-pong latency over Eclipse iceoryx2 (Rust, no daemon).
//!
//! The parent (CPU A) publishes on `baton-bench/<pid>/<mode>/<size>/ping` and subscribes to
//! `.../pong`; an exec'd echo child (CPU B) does the opposite. Payloads are dynamic `[u8]`
//! slices (publisher `initial_max_slice_len(size)`): `loan_slice_uninit(size)` -> write per
//! `--payload-work` -> `send()`; `receive()` -> read -> drop.
//! Modes: `busy-poll` (spin on `receive()`) and `blocking` (after each send the sender
//! `notify()`s an event service; the receiver waits in its `Listener`, as iceoryx2's
//! event-based examples do). One-way latency = RTT / 2.
//!
//! Same command line and JSON lines as the C++ floors/peers (bench/floors/pingpong_harness.hpp).

use core::time::Duration;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::prelude::*;

mod common;
use common::{now_ns, parse_u64, pin_to_cpu, Res};

const SYSTEM: &str = "iceoryx2";
const PROGRAM: &str = "baton-peer-iceoryx2";
const MODES: [&str; 2] = ["busy-poll", "blocking"];
/// Handshake messages carry this bit; the timed loop ignores stale ones.
const HELLO: u64 = 1 << 63;

// ------------------------------------------------------------------------------------------
// Command line (mirrors pingpong_harness.hpp).

#[derive(Clone, Copy, PartialEq)]
enum Work {
    Seq,
    Fill,
}

struct Options {
    cpu_a: i32,
    cpu_b: i32,
    sizes: Vec<u64>,
    samples: usize,
    quick: bool,
    work: Work,
    modes: Vec<String>,
    json: String,
    echo: bool,
    size: u64,
    iterations: usize,
}

fn usage() {
    println!(
        "usage: {PROGRAM} [options]

Ping-pong over Eclipse iceoryx2 0.10 (Rust, zero-copy publish-subscribe with dynamic [u8]
slices, no daemon). busy-poll: spin on receive(); blocking: the sender notify()s an event
service and the receiver waits in its Listener.

Measures one-way latency = RTT/2 of a two-process ping-pong (this process pings on
CPU A, an exec'd echo child answers on CPU B).

options:
  --modes LIST        modes to run, comma separated (default and supported: busy-poll,blocking)
  --cpus A,B          pin ping side to CPU A, echo side to CPU B (default 0,1;
                      0,0 puts both on one CPU; -1 leaves a side unpinned)
  --sizes LIST        payload bytes, comma separated; K/M suffixes allowed
                      (default 64,65536,4194304,25165824)
  --samples N         samples per size (default 10000 for <= 64 KiB, 2000 up to
                      4 MiB, 300 above); 10% more are run first as warm-up
  --quick             divide the sample counts by 10
  --payload-work W    seq: writer writes only an 8-byte sequence number, reader
                      reads it (default); fill: writer memsets the whole payload,
                      reader reads the first and last byte
  --json PATH         append JSON lines here (default out/bench/{SYSTEM}.json; '' = none)
  --help              this text"
    );
}

fn parse_options() -> Res<Options> {
    let mut o = Options {
        cpu_a: 0,
        cpu_b: 1,
        sizes: vec![64, 65536, 4194304, 25165824],
        samples: 0,
        quick: false,
        work: Work::Seq,
        modes: Vec::new(),
        json: format!("out/bench/{SYSTEM}.json"),
        echo: false,
        size: 0,
        iterations: 0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].clone();
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) if a.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut value = || -> Res<String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("option {key} needs a value (see --help)"))
        };
        match key.as_str() {
            "--help" | "-h" => {
                usage();
                std::process::exit(0);
            }
            "--quick" => o.quick = true,
            "--cpus" => {
                let v = value()?;
                let parts: Vec<&str> = v.split(',').collect();
                if parts.len() != 2 {
                    return Err("--cpus wants A,B (e.g. 0,1)".into());
                }
                o.cpu_a = parts[0]
                    .trim()
                    .parse()
                    .map_err(|_| "bad --cpus".to_string())?;
                o.cpu_b = parts[1]
                    .trim()
                    .parse()
                    .map_err(|_| "bad --cpus".to_string())?;
            }
            "--sizes" => {
                o.sizes = value()?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| parse_u64(s, "size"))
                    .collect::<Res<_>>()?;
                if o.sizes.is_empty() {
                    return Err("--sizes is empty".into());
                }
            }
            "--samples" => {
                o.samples = parse_u64(&value()?, "sample count")? as usize;
                if o.samples == 0 {
                    return Err("--samples must be > 0".into());
                }
            }
            "--payload-work" => {
                o.work = match value()?.as_str() {
                    "seq" => Work::Seq,
                    "fill" => Work::Fill,
                    _ => return Err("--payload-work must be seq or fill".into()),
                }
            }
            "--modes" | "--mode" => {
                o.modes = value()?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            }
            "--json" => o.json = value()?,
            "--role" => {
                if value()? != "echo" {
                    return Err("--role must be echo".into());
                }
                o.echo = true;
            }
            "--size" => o.size = parse_u64(&value()?, "size")?,
            "--iterations" => o.iterations = parse_u64(&value()?, "iteration count")? as usize,
            _ => return Err(format!("unknown option '{a}' (see --help)")),
        }
        i += 1;
    }
    if o.modes.is_empty() {
        o.modes = MODES.iter().map(|s| s.to_string()).collect();
    }
    for m in &o.modes {
        if !MODES.contains(&m.as_str()) {
            return Err(format!(
                "mode '{m}' not supported by {PROGRAM} (see --help)"
            ));
        }
    }
    if o.echo && o.modes.len() != 1 {
        return Err("echo role needs exactly one --mode".into());
    }
    if o.sizes.iter().any(|&s| s < 8) {
        return Err(
            "sizes must be >= 8 bytes (the payload carries an 8-byte sequence number)".into(),
        );
    }
    Ok(o)
}

fn samples_for(o: &Options, size: u64) -> usize {
    let mut n = if o.samples > 0 {
        o.samples
    } else if size <= 65536 {
        10000
    } else if size <= 4194304 {
        2000
    } else {
        300
    };
    if o.quick {
        n = (n / 10).max(10);
    }
    n
}

fn size_label(size: u64) -> String {
    if size >= 1 << 20 && size % (1 << 20) == 0 {
        format!("{} MiB", size >> 20)
    } else if size >= 1024 && size % 1024 == 0 {
        format!("{} KiB", size >> 10)
    } else {
        format!("{size} B")
    }
}

// ------------------------------------------------------------------------------------------
// Clock, pinning, payload work.

fn fill_byte(seq: u64) -> u8 {
    (seq.wrapping_mul(0x9d) as u8) | 1
}

/// Writes the payload per --payload-work into `size` uninitialised bytes at `p`.
unsafe fn write_payload(p: *mut u8, size: usize, seq: u64, work: Work) {
    if work == Work::Fill {
        core::ptr::write_bytes(p, fill_byte(seq), size);
    }
    core::ptr::copy_nonoverlapping(seq.to_le_bytes().as_ptr(), p, 8);
}

/// Reads the sequence number; in fill mode also the first and last byte (checked).
fn read_payload(p: &[u8], work: Work) -> Res<u64> {
    let seq = u64::from_le_bytes(p[..8].try_into().unwrap());
    if work == Work::Fill {
        let first = core::hint::black_box(p[0]);
        let _ = first;
        if p.len() > 8 && p[p.len() - 1] != fill_byte(seq) {
            return Err("payload corrupted (last byte mismatch)".into());
        }
    }
    Ok(seq)
}

// ------------------------------------------------------------------------------------------
// Process management: the echo child, signals.

static STOP: AtomicBool = AtomicBool::new(false);
static DEADLINE: AtomicBool = AtomicBool::new(false);
static SIGCHLD_SEEN: AtomicBool = AtomicBool::new(false);
static CLEAN_EXIT_SEEN: AtomicBool = AtomicBool::new(false);
static ECHO_PID: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_stop_signal(sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
    if sig == libc::SIGALRM {
        DEADLINE.store(true, Ordering::SeqCst);
        let msg = b"error: run exceeded its deadline (peer hung?); killing the echo child\n";
        unsafe { libc::write(2, msg.as_ptr() as *const libc::c_void, msg.len()) };
    }
    let pid = ECHO_PID.load(Ordering::SeqCst);
    if pid > 0 {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

extern "C" fn on_sigchld(_: libc::c_int) {
    SIGCHLD_SEEN.store(true, Ordering::SeqCst);
}

fn install_parent_handlers() {
    unsafe {
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGALRM] {
            libc::signal(s, on_stop_signal as *const () as libc::sighandler_t);
        }
        libc::signal(libc::SIGCHLD, on_sigchld as *const () as libc::sighandler_t);
    }
}

/// Called in every wait loop of the parent: fails once a signal asked us to stop or the echo
/// child died (cheap: two relaxed loads unless a SIGCHLD arrived).
fn parent_check(child: &mut Child) -> Res<()> {
    if STOP.load(Ordering::Relaxed) {
        return Err(if DEADLINE.load(Ordering::SeqCst) {
            "run exceeded its deadline".into()
        } else {
            "interrupted".into()
        });
    }
    if SIGCHLD_SEEN.load(Ordering::Relaxed) {
        SIGCHLD_SEEN.store(false, Ordering::Relaxed);
        if let Ok(Some(st)) = child.try_wait() {
            if !st.success() {
                return Err(format!("echo child exited early ({st})"));
            }
            // A clean exit means its last answer is already out: the caller's next receive()
            // finds it. Coming back here still waiting (flag re-armed below) is a failure.
            if CLEAN_EXIT_SEEN.swap(true, Ordering::Relaxed) {
                return Err("echo child exited before answering".into());
            }
            SIGCHLD_SEEN.store(true, Ordering::Relaxed);
        }
    }
    Ok(())
}

fn spawn_echo(o: &Options, mode: &str, size: u64, iterations: usize) -> Res<Child> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args([
        "--role",
        "echo",
        "--mode",
        mode,
        "--size",
        &size.to_string(),
        "--iterations",
        &iterations.to_string(),
        "--payload-work",
        if o.work == Work::Seq { "seq" } else { "fill" },
        "--cpus",
        &format!("{},{}", o.cpu_a, o.cpu_b),
        "--json",
        "",
    ]);
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the echo child: {e}"))?;
    ECHO_PID.store(child.id() as i32, Ordering::SeqCst);
    Ok(child)
}

// ------------------------------------------------------------------------------------------
// One side of the ping-pong.

struct Endpoint {
    publisher: Publisher<ipc::Service, [u8], ()>,
    subscriber: Subscriber<ipc::Service, [u8], ()>,
    // Blocking mode: notify the peer after each send; wait in our listener.
    events: Option<(Notifier<ipc::Service>, Listener<ipc::Service>)>,
    size: usize,
    work: Work,
}

fn service_name(s: &str) -> Res<ServiceName> {
    ServiceName::new(s).map_err(|e| format!("bad service name '{s}': {e:?}"))
}

impl Endpoint {
    fn new(
        node: &Node<ipc::Service>,
        prefix: &str,
        out: &str,
        inp: &str,
        blocking: bool,
        size: u64,
        work: Work,
    ) -> Res<Self> {
        let pubsub = |name: &str| {
            node.service_builder(&service_name(&format!("{prefix}/{name}"))?)
                .publish_subscribe::<[u8]>()
                .max_publishers(1)
                .max_subscribers(1)
                .history_size(0)
                .subscriber_max_buffer_size(1)
                .subscriber_max_borrowed_samples(1)
                .open_or_create()
                .map_err(|e| format!("iceoryx2 publish-subscribe service '{name}': {e:?}"))
        };
        let svc_out = pubsub(out)?;
        let svc_in = pubsub(inp)?;
        let publisher = svc_out
            .publisher_builder()
            .initial_max_slice_len(size as usize)
            .max_loaned_samples(1)
            .create()
            .map_err(|e| format!("iceoryx2 publisher: {e:?}"))?;
        let subscriber = svc_in
            .subscriber_builder()
            .buffer_size(1)
            .create()
            .map_err(|e| format!("iceoryx2 subscriber: {e:?}"))?;
        let events = if blocking {
            let event = |name: &str| {
                node.service_builder(&service_name(&format!("{prefix}/{name}-event"))?)
                    .event()
                    .open_or_create()
                    .map_err(|e| format!("iceoryx2 event service '{name}': {e:?}"))
            };
            let notifier = event(out)?
                .notifier_builder()
                .create()
                .map_err(|e| format!("iceoryx2 notifier: {e:?}"))?;
            let listener = event(inp)?
                .listener_builder()
                .create()
                .map_err(|e| format!("iceoryx2 listener: {e:?}"))?;
            Some((notifier, listener))
        } else {
            None
        };
        Ok(Self {
            publisher,
            subscriber,
            events,
            size: size as usize,
            work,
        })
    }

    fn send(&self, seq: u64) -> Res<()> {
        let mut sample = self
            .publisher
            .loan_slice_uninit(self.size)
            .map_err(|e| format!("iceoryx2 loan of {} bytes: {e:?}", self.size))?;
        unsafe {
            write_payload(
                sample.payload_mut().as_mut_ptr() as *mut u8,
                self.size,
                seq,
                self.work,
            );
            sample.assume_init()
        }
        .send()
        .map_err(|e| format!("iceoryx2 send: {e:?}"))?;
        if let Some((notifier, _)) = &self.events {
            notifier
                .notify()
                .map_err(|e| format!("iceoryx2 notify: {e:?}"))?;
        }
        Ok(())
    }

    /// Returns the next message's sequence number, or None once `deadline_ns` (if any) passed.
    fn receive(
        &self,
        deadline_ns: Option<u64>,
        check: &mut dyn FnMut() -> Res<()>,
    ) -> Res<Option<u64>> {
        let mut spins: u32 = 0;
        loop {
            if let Some(sample) = self
                .subscriber
                .receive()
                .map_err(|e| format!("iceoryx2 receive: {e:?}"))?
            {
                let p = sample.payload();
                if p.len() != self.size {
                    return Err(format!(
                        "received {} bytes, expected {}",
                        p.len(),
                        self.size
                    ));
                }
                return read_payload(p, self.work).map(Some);
            }
            match &self.events {
                Some((_, listener)) => {
                    let waited = listener.timed_wait(|_| {}, Duration::from_millis(20));
                    check()?; // first, so a signal reports as "interrupted"
                    waited.map_err(|e| format!("iceoryx2 listener wait: {e:?}"))?;
                    if deadline_ns.is_some_and(|d| now_ns() > d) {
                        return Ok(None);
                    }
                }
                None => {
                    core::hint::spin_loop();
                    check()?;
                    spins = spins.wrapping_add(1);
                    if spins % 1024 == 0 && deadline_ns.is_some_and(|d| now_ns() > d) {
                        return Ok(None);
                    }
                }
            }
        }
    }
}

fn create_node(role: &str) -> Res<Node<ipc::Service>> {
    let name = NodeName::new(&format!("baton-iceoryx2-{role}"))
        .map_err(|e| format!("bad node name: {e:?}"))?;
    NodeBuilder::new()
        .name(&name)
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<ipc::Service>()
        .map_err(|e| format!("iceoryx2 node: {e:?}"))
}

fn run_echo(o: &Options) -> Res<()> {
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    pin_to_cpu(o.cpu_b, "echo");
    let parent = unsafe { libc::getppid() };
    let mut parent_alive = || -> Res<()> {
        if unsafe { libc::getppid() } != parent {
            std::process::exit(1);
        }
        Ok(())
    };
    let node = create_node("echo")?;
    let prefix = format!("baton-bench/{parent}/{}/{}", o.modes[0], o.size);
    let ep = Endpoint::new(
        &node,
        &prefix,
        "pong",
        "ping",
        o.modes[0] == "blocking",
        o.size,
        o.work,
    )?;
    let mut done = 0;
    let mut no_check = || Ok(());
    while done < o.iterations {
        // Busy-poll: no liveness check in the spin (PR_SET_PDEATHSIG kills us with the parent).
        let got = if ep.events.is_some() {
            ep.receive(None, &mut parent_alive)?
        } else {
            ep.receive(None, &mut no_check)?
        };
        let seq = got.unwrap();
        ep.send(seq)?;
        if seq & HELLO == 0 {
            done += 1;
        }
    }
    Ok(())
}

fn summarize(mut v: Vec<f64>) -> (f64, f64, f64, usize) {
    if v.is_empty() {
        return (0.0, 0.0, 0.0, 0);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let rank = |q: f64| {
        let i = (q * (v.len() - 1) as f64 + 0.5) as usize;
        v[i.min(v.len() - 1)]
    };
    (rank(0.5), rank(0.99), *v.last().unwrap(), v.len())
}

fn append_json(path: &str, mode: &str, size: u64, s: (f64, f64, f64, usize)) -> Res<()> {
    if path.is_empty() {
        return Ok(());
    }
    let p = std::path::Path::new(path);
    if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .map_err(|e| format!("cannot open {path}: {e}"))?;
    writeln!(
        f,
        "{{\"system\":\"{SYSTEM}\",\"mode\":\"{mode}\",\"size\":{size},\"median\":{:.4},\"p99\":{:.4},\"max\":{:.4},\"samples\":{},\"unit\":\"us\"}}",
        s.0, s.1, s.2, s.3
    )
    .map_err(|e| format!("cannot write {path}: {e}"))
}

fn run_one(
    o: &Options,
    node: &Node<ipc::Service>,
    mode: &str,
    size: u64,
    child_slot: &mut Option<Child>,
) -> Res<Vec<u64>> {
    let samples = samples_for(o, size);
    let total = samples + samples / 10;
    let pid = std::process::id();
    let prefix = format!("baton-bench/{pid}/{mode}/{size}");
    let ep = Endpoint::new(
        node,
        &prefix,
        "ping",
        "pong",
        mode == "blocking",
        size,
        o.work,
    )?;
    let child = child_slot.insert(spawn_echo(o, mode, size, total)?);
    unsafe { libc::alarm(600) };
    let mut check = || parent_check(child);
    // Handshake: a sample sent before the peer's subscriber is connected is lost, so ping
    // until the echo child answers once.
    let start = now_ns();
    let mut k = 0u64;
    loop {
        ep.send(HELLO | k)?;
        k += 1;
        if let Some(got) = ep.receive(Some(now_ns() + 20_000_000), &mut check)? {
            if got & HELLO != 0 {
                break;
            }
        }
        if now_ns() - start > 20_000_000_000 {
            return Err("iceoryx2 echo child did not answer within 20 s".into());
        }
    }
    let mut rtt = vec![0u64; total];
    for (i, slot) in rtt.iter_mut().enumerate() {
        let t0 = now_ns();
        ep.send(i as u64)?;
        let got = loop {
            let g = ep.receive(None, &mut check)?.unwrap();
            if g & HELLO == 0 {
                break g; // skip late answers to handshake pings
            }
        };
        *slot = now_ns() - t0;
        if got != i as u64 {
            return Err(format!("pong carried sequence {got}, expected {i}"));
        }
    }
    unsafe { libc::alarm(0) };
    // The child exits after its last echo; wait for it (and fail on a bad exit).
    let deadline = now_ns() + 20_000_000_000;
    loop {
        match child.try_wait() {
            Ok(Some(st)) if st.success() => break,
            Ok(Some(st)) => return Err(format!("echo child failed ({st})")),
            Ok(None) if now_ns() > deadline => {
                return Err("echo child did not exit within 20 s after the run".into())
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting for the echo child: {e}")),
        }
    }
    *child_slot = None;
    ECHO_PID.store(-1, Ordering::SeqCst);
    Ok(rtt[samples / 10..].to_vec())
}

fn run_parent(o: &Options) -> Res<()> {
    install_parent_handlers();
    pin_to_cpu(o.cpu_a, "ping");
    let node = create_node("ping")?;
    // Remove what earlier runs that were killed may have left in /dev/shm and /tmp/iceoryx2.
    node.try_cleanup_dead_nodes();
    println!(
        "# {PROGRAM}  cpus {},{}  payload-work {}{}",
        o.cpu_a,
        o.cpu_b,
        if o.work == Work::Seq { "seq" } else { "fill" },
        if o.quick { "  (quick)" } else { "" }
    );
    println!(
        "{:<16} {:<22} {:>9} {:>8} {:>12} {:>12} {:>12}",
        "system", "mode", "size", "samples", "median us", "p99 us", "max us"
    );
    for mode in &o.modes {
        for &size in &o.sizes {
            let mut child: Option<Child> = None;
            let result = run_one(o, &node, mode, size, &mut child);
            if let Some(mut c) = child {
                let _ = c.kill();
                let _ = c.wait();
                ECHO_PID.store(-1, Ordering::SeqCst);
                node.try_cleanup_dead_nodes();
            }
            let rtt = result?;
            let us: Vec<f64> = rtt.iter().map(|&r| r as f64 / 2000.0).collect();
            let s = summarize(us.clone());
            // As in pingpong_harness.hpp: non-default runs never mix with default ones.
            let mut label = mode.clone();
            if o.work == Work::Fill {
                label.push_str("-fill");
            }
            if o.cpu_a >= 0 && o.cpu_a == o.cpu_b {
                label.push_str("-same-cpu");
            }
            println!(
                "{:<16} {:<22} {:>9} {:>8} {:>12.3} {:>12.3} {:>12.3}",
                SYSTEM,
                label,
                size_label(size),
                s.3,
                s.0,
                s.1,
                s.2
            );
            let _ = std::io::stdout().flush();
            append_json(&o.json, &label, size, s)?;
            // BATON_BENCH_RAW_DIR (bench/suite): every one-way sample in order, as the C++
            // harness writes them.
            if let Ok(dir) = std::env::var("BATON_BENCH_RAW_DIR") {
                if !dir.is_empty() {
                    let path = format!("{dir}/{SYSTEM}_{label}_{size}.csv");
                    let body: String = us.iter().map(|v| format!("{v:.4}\n")).collect();
                    let _ = std::fs::write(&path, body);
                }
            }
        }
    }
    Ok(())
}

fn main() {
    set_log_level(LogLevel::Error);
    let result = parse_options().and_then(|o| if o.echo { run_echo(&o) } else { run_parent(&o) });
    if let Err(e) = result {
        let _ = std::io::stdout().flush();
        eprintln!("error: {e}");
        let interrupted = STOP.load(Ordering::SeqCst) && !DEADLINE.load(Ordering::SeqCst);
        std::process::exit(if interrupted { 130 } else { 1 });
    }
}
