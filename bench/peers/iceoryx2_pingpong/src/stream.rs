//! baton-peer-iceoryx2-stream: one role of bench/suite's open-loop scenarios (A queue
//! processing, B sizes x rates, D ping-pong with watermark, seed 004's chain, the subscriber
//! sweep) over Eclipse iceoryx2 (Rust, no daemon). The protocol, options and log format are
//! bench/stream/stream_roles.hpp's, written again here in Rust: sender / receiver / relay /
//! pinger, {u32 seq, u32 value} at the start of every payload, HELLO / END markers, ready.* and
//! done.* files in --sync, logs <sync>/<name>.send|.recv|.stats.
//!
//! Services `<topic>` (publish-subscribe, `[u8]` slices of up to the largest size) with
//! `--subscribers` subscribers, buffer `--depth`, no safe overflow and a publisher that retries
//! until delivered (iceoryx2's delivery guarantee). blocking: each send is followed by a
//! `notify()` on `<topic>-event` and subscribers wait in a Listener; busy-poll: spin on
//! `receive()`.

use core::time::Duration;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::prelude::*;

mod common;
use common::{now_ns, parse_u64, pin_to_cpu, Res};

const HELLO: u32 = 0xFFFF_FFFF;
const END: u32 = 0xFFFF_FFFE;
const KEY: u32 = 0x5A5A_5A5A;
const HEADER: usize = 8;

/// Set by SIGTERM / SIGINT: the coordinator stops relays this way once a run is over, and they
/// return normally so iceoryx2 removes their ports and node.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

struct Options {
    role: String,
    out: String,
    inp: String,
    sizes: Vec<u64>,
    per_size: u64,
    rate: f64,
    watermark: u64,
    depth: usize,
    relays: u32,
    subscribers: usize,
    blocking: bool,
    sync: String,
    name: String,
    wait_ready: usize,
    wait_done: usize,
    timeout_s: f64,
    cpu: i32,
    /// Sender: write every payload byte (a camera filling its frame), so the pages the stream
    /// cycles through are resident; bench/suite's memory cell (issue 20).
    fill: bool,
}

impl Options {
    fn max_size(&self) -> usize {
        *self.sizes.iter().max().unwrap() as usize
    }
    fn total(&self) -> u64 {
        self.per_size * self.sizes.len() as u64
    }
    fn size_of(&self, seq: u32) -> usize {
        self.sizes[(seq as u64 / self.per_size) as usize] as usize
    }
}

const USAGE: &str =
    "usage: baton-peer-iceoryx2-stream --role sender|receiver|relay|pinger [options]

One role of bench/suite's open-loop scenarios over iceoryx2 (protocol and options as
bench/stream/stream_roles.hpp): --out/--in TOPIC, --sizes LIST, --per-size N, --rate HZ,
--watermark W, --depth D, --relays K, --subscribers N (per topic, sizes the service),
--mode blocking|busy-poll, --sync DIR, --name NAME, --wait-ready N, --wait-done N,
--timeout S, --cpu C, --fill 0|1 (sender: write every payload byte).";

fn parse_options() -> Res<Options> {
    let mut o = Options {
        role: String::new(),
        out: String::new(),
        inp: String::new(),
        sizes: vec![64],
        per_size: 100,
        rate: 0.0,
        watermark: 0,
        depth: 64,
        relays: 0,
        subscribers: 1,
        blocking: true,
        sync: String::new(),
        name: String::new(),
        wait_ready: 1,
        wait_done: 1,
        timeout_s: 120.0,
        cpu: -1,
        fill: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let key = args[i].clone();
        if key == "--help" || key == "-h" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        i += 1;
        let v = args
            .get(i)
            .cloned()
            .ok_or_else(|| format!("option {key} needs a value (see --help)"))?;
        let num = |what: &str| parse_u64(&v, what);
        match key.as_str() {
            "--role" => o.role = v.clone(),
            "--fill" => o.fill = num("--fill")? != 0,
            "--out" => o.out = v.clone(),
            "--in" => o.inp = v.clone(),
            "--sizes" => {
                o.sizes = v
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| parse_u64(s, "size"))
                    .collect::<Res<_>>()?
            }
            "--per-size" => o.per_size = num("--per-size")?,
            "--rate" => o.rate = v.parse().map_err(|_| format!("bad --rate: {v}"))?,
            "--watermark" => o.watermark = num("--watermark")?,
            "--depth" => o.depth = num("--depth")? as usize,
            "--relays" => o.relays = num("--relays")? as u32,
            "--subscribers" => o.subscribers = num("--subscribers")? as usize,
            "--mode" => {
                o.blocking = match v.as_str() {
                    "blocking" => true,
                    "busy-poll" => false,
                    _ => return Err("--mode must be blocking or busy-poll".into()),
                }
            }
            "--sync" => o.sync = v.clone(),
            "--name" => o.name = v.clone(),
            "--wait-ready" => o.wait_ready = num("--wait-ready")? as usize,
            "--wait-done" => o.wait_done = num("--wait-done")? as usize,
            "--timeout" => o.timeout_s = v.parse().map_err(|_| format!("bad --timeout: {v}"))?,
            "--cpu" => o.cpu = v.parse().map_err(|_| format!("bad --cpu: {v}"))?,
            "--domain" => {} // DDS only; accepted so every stream program takes the same line
            _ => return Err(format!("unknown option '{key}' (see --help)")),
        }
        i += 1;
    }
    if !["sender", "receiver", "relay", "pinger"].contains(&o.role.as_str()) {
        return Err("--role must be sender, receiver, relay or pinger".into());
    }
    if o.sizes.is_empty() || o.per_size == 0 {
        return Err("--sizes and --per-size must not be empty / 0".into());
    }
    if o.sizes.iter().any(|&s| (s as usize) < HEADER) {
        return Err("sizes must be >= 8 bytes (the {seq, value} header)".into());
    }
    if o.total() >= END as u64 || o.depth == 0 || o.subscribers == 0 {
        return Err("bad --per-size / --depth / --subscribers".into());
    }
    if o.sync.is_empty() || o.name.is_empty() {
        return Err("--sync DIR and --name NAME are required".into());
    }
    if o.role != "receiver" && o.out.is_empty() {
        return Err(format!("--out TOPIC is required for role {}", o.role));
    }
    if o.role != "sender" && o.inp.is_empty() {
        return Err(format!("--in TOPIC is required for role {}", o.role));
    }
    Ok(o)
}

fn source_value(seq: u32) -> u32 {
    seq ^ KEY
}

fn relayed_value(seq: u32, value: u32) -> u32 {
    value.wrapping_add(seq)
}

fn count_files(dir: &str, prefix: &str) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .count()
        })
        .unwrap_or(0)
}

fn touch(o: &Options, what: &str) -> Res<()> {
    let path = format!("{}/{what}.{}", o.sync, o.name);
    std::fs::File::create(&path)
        .map(|_| ())
        .map_err(|e| format!("cannot create {path}: {e}"))
}

/// One log line per record: "seq t_ns" (sends) or "seq t_ns size" (receipts).
fn write_log(o: &Options, ext: &str, log: &[(u32, u64, usize)], with_size: bool) -> Res<()> {
    let path = format!("{}/{}.{ext}", o.sync, o.name);
    let mut f = std::io::BufWriter::new(
        std::fs::File::create(&path).map_err(|e| format!("cannot write {path}: {e}"))?,
    );
    for (seq, t, size) in log {
        let r = if with_size {
            writeln!(f, "{seq} {t} {size}")
        } else {
            writeln!(f, "{seq} {t}")
        };
        r.map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    f.flush().map_err(|e| format!("cannot write {path}: {e}"))
}

fn sleep_until_ns(t: u64) {
    let now = now_ns();
    if t > now {
        std::thread::sleep(Duration::from_nanos(t - now));
    }
}

fn service_name(s: &str) -> Res<ServiceName> {
    ServiceName::new(s).map_err(|e| format!("bad service name '{s}': {e:?}"))
}

struct Transport {
    o: Options,
    node: Node<ipc::Service>,
    publisher: Option<(
        Publisher<ipc::Service, [u8], ()>,
        Option<Notifier<ipc::Service>>,
    )>,
    subscriber: Option<(
        Subscriber<ipc::Service, [u8], ()>,
        Option<Listener<ipc::Service>>,
    )>,
    deadline: u64,
    hello_back: bool,
}

impl Transport {
    fn new(o: Options) -> Res<Self> {
        let name = NodeName::new(&format!("baton-stream-{}", o.name))
            .map_err(|e| format!("bad node name: {e:?}"))?;
        let node = NodeBuilder::new()
            .name(&name)
            .signal_handling_mode(SignalHandlingMode::Disabled)
            .create::<ipc::Service>()
            .map_err(|e| format!("iceoryx2 node: {e:?}"))?;
        let deadline = now_ns() + (o.timeout_s * 1e9) as u64;
        Ok(Self {
            o,
            node,
            publisher: None,
            subscriber: None,
            deadline,
            hello_back: false,
        })
    }

    // Every process opens a topic's services with the same settings, whoever comes first.
    fn pubsub(
        &self,
        topic: &str,
    ) -> Res<iceoryx2::service::port_factory::publish_subscribe::PortFactory<ipc::Service, [u8], ()>>
    {
        self.node
            .service_builder(&service_name(topic)?)
            .publish_subscribe::<[u8]>()
            .max_publishers(2)
            .max_subscribers(self.o.subscribers)
            .max_nodes(self.o.subscribers + 8)
            .history_size(0)
            .subscriber_max_buffer_size(self.o.depth)
            .subscriber_max_borrowed_samples(1)
            .enable_safe_overflow(false)
            .open_or_create()
            .map_err(|e| format!("iceoryx2 publish-subscribe service '{topic}': {e:?}"))
    }

    fn event(
        &self,
        topic: &str,
    ) -> Res<iceoryx2::service::port_factory::event::PortFactory<ipc::Service>> {
        self.node
            .service_builder(&service_name(&format!("{topic}-event"))?)
            .event()
            .max_notifiers(2)
            .max_listeners(self.o.subscribers)
            .max_nodes(self.o.subscribers + 8)
            .open_or_create()
            .map_err(|e| format!("iceoryx2 event service '{topic}': {e:?}"))
    }

    fn advertise(&mut self, topic: &str) -> Res<()> {
        let publisher = self
            .pubsub(topic)?
            .publisher_builder()
            .initial_max_slice_len(self.o.max_size())
            .max_loaned_samples(2)
            .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
            .create()
            .map_err(|e| format!("iceoryx2 publisher: {e:?}"))?;
        let notifier = if self.o.blocking {
            Some(
                self.event(topic)?
                    .notifier_builder()
                    .create()
                    .map_err(|e| format!("iceoryx2 notifier: {e:?}"))?,
            )
        } else {
            None
        };
        self.publisher = Some((publisher, notifier));
        Ok(())
    }

    fn subscribe(&mut self, topic: &str) -> Res<()> {
        let subscriber = self
            .pubsub(topic)?
            .subscriber_builder()
            .buffer_size(self.o.depth)
            .create()
            .map_err(|e| format!("iceoryx2 subscriber: {e:?}"))?;
        let listener = if self.o.blocking {
            Some(
                self.event(topic)?
                    .listener_builder()
                    .create()
                    .map_err(|e| format!("iceoryx2 listener: {e:?}"))?,
            )
        } else {
            None
        };
        self.subscriber = Some((subscriber, listener));
        Ok(())
    }

    fn send(&self, seq: u32, value: u32, size: usize) -> Res<()> {
        let (publisher, notifier) = self.publisher.as_ref().ok_or("no publisher")?;
        let mut sample = publisher
            .loan_slice_uninit(size)
            .map_err(|e| format!("iceoryx2 loan of {size} bytes: {e:?}"))?;
        let p = sample.payload_mut();
        for (k, b) in seq
            .to_ne_bytes()
            .iter()
            .chain(value.to_ne_bytes().iter())
            .enumerate()
        {
            p[k].write(*b);
        }
        // The rest of the payload is left as loaned, as the C++ programs do (seq work), unless
        // --fill asks for every byte written.
        if self.o.fill {
            for b in p[8..].iter_mut() {
                b.write(seq as u8);
            }
        }
        unsafe { sample.assume_init() }
            .send()
            .map_err(|e| format!("iceoryx2 send: {e:?}"))?;
        if let Some(n) = notifier {
            n.notify().map_err(|e| format!("iceoryx2 notify: {e:?}"))?;
        }
        Ok(())
    }

    /// The next message (seq, value, size) if one arrives within `timeout_ns`.
    fn receive(&self, timeout_ns: u64) -> Res<Option<(u32, u32, usize)>> {
        let (subscriber, listener) = self.subscriber.as_ref().ok_or("no subscriber")?;
        // The deadline is read from the clock only once a receive found nothing: one clock
        // read per message, as the sender does (as bench/stream/baton_stream.cpp does too).
        let mut until = 0;
        loop {
            if let Some(sample) = subscriber
                .receive()
                .map_err(|e| format!("iceoryx2 receive: {e:?}"))?
            {
                let p = sample.payload();
                if p.len() < HEADER {
                    return Err("iceoryx2: payload too short".into());
                }
                let seq = u32::from_ne_bytes(p[0..4].try_into().unwrap());
                let value = u32::from_ne_bytes(p[4..8].try_into().unwrap());
                return Ok(Some((seq, value, p.len())));
            }
            let now = now_ns();
            if until == 0 {
                until = now + timeout_ns;
            }
            if now >= until {
                return Ok(None);
            }
            if let Some(l) = listener {
                // iceoryx2 0.10 hands the timeout to SO_RCVTIMEO as whole microseconds, and a
                // timeval of 0 there means "wait forever": a remainder under 1 µs blocked until
                // the next notification, and when none came (the pinger waiting for a tick with
                // every answer in) both sides waited for each other until the suite's limit.
                let wait = (until - now).max(1_000);
                l.timed_wait(|_| {}, Duration::from_nanos(wait))
                    .map_err(|e| format!("iceoryx2 listener wait: {e:?}"))?;
            } else {
                core::hint::spin_loop();
            }
        }
    }

    fn check_deadline(&self, what: &str) -> Res<()> {
        if STOP.load(Ordering::Relaxed) {
            let (role, name) = (&self.o.role, &self.o.name);
            return Err(format!("{role} {name}: stopped by a signal while {what}"));
        }
        if now_ns() > self.deadline {
            return Err(format!("{} {}: timed out {what}", self.o.role, self.o.name));
        }
        if unsafe { libc::getppid() } == 1 {
            std::process::exit(1); // the coordinator is gone
        }
        Ok(())
    }

    /// Sends HELLO every 10 ms until `ready()`; pingers note their HELLO coming back.
    fn hello_until(&mut self, ready: &dyn Fn(&Self) -> bool) -> Res<()> {
        while !ready(self) {
            self.check_deadline("waiting for the subscribers (ready files)")?;
            self.send(HELLO, 0, self.o.sizes[0] as usize)?;
            let until = now_ns() + 10_000_000;
            if self.subscriber.is_none() {
                sleep_until_ns(until);
                continue;
            }
            loop {
                let now = now_ns();
                if now >= until {
                    break;
                }
                if let Some((seq, _, _)) = self.receive(until - now)? {
                    if seq == HELLO {
                        self.hello_back = true;
                    }
                }
            }
        }
        Ok(())
    }

    fn tick_ns(&self, t0: u64, i: u64) -> u64 {
        t0 + (i as f64 * 1e9 / self.o.rate) as u64
    }

    fn sender(&mut self) -> Res<()> {
        let out = self.o.out.clone();
        self.advertise(&out)?;
        self.hello_until(&|t: &Self| count_files(&t.o.sync, "ready.") >= t.o.wait_ready)?;
        let total = self.o.total() as u32;
        let mut log = Vec::with_capacity(total as usize);
        let t0 = now_ns();
        for i in 0..total {
            if self.o.rate > 0.0 {
                sleep_until_ns(self.tick_ns(t0, i as u64));
            }
            let size = self.o.size_of(i);
            log.push((i, now_ns(), size));
            self.send(i, source_value(i), size)?;
        }
        while count_files(&self.o.sync, "done.") < self.o.wait_done {
            self.check_deadline("waiting for the receivers to finish")?;
            self.send(END, 0, self.o.sizes[0] as usize)?;
            std::thread::sleep(Duration::from_millis(20));
        }
        write_log(&self.o, "send", &log, false)
    }

    fn receiver(&mut self) -> Res<()> {
        let inp = self.o.inp.clone();
        self.subscribe(&inp)?;
        let mut log = Vec::with_capacity(self.o.total() as usize);
        let mut ready = false;
        let mut corrupt = 0u64;
        loop {
            let Some((seq, value, size)) = self.receive(200_000_000)? else {
                self.check_deadline("waiting for messages")?;
                continue;
            };
            let t = now_ns();
            if seq == HELLO {
                if !ready {
                    touch(&self.o, "ready")?;
                }
                ready = true;
                continue;
            }
            if seq == END {
                break;
            }
            let mut expect = source_value(seq);
            for _ in 0..self.o.relays {
                expect = relayed_value(seq, expect);
            }
            if seq as u64 >= self.o.total() || value != expect || size != self.o.size_of(seq) {
                corrupt += 1;
                continue;
            }
            log.push((seq, t, size));
        }
        write_log(&self.o, "recv", &log, true)?;
        touch(&self.o, "done")?;
        if corrupt > 0 {
            return Err(format!("{}: {corrupt} corrupt messages", self.o.name));
        }
        Ok(())
    }

    fn relay(&mut self) -> Res<()> {
        let (inp, out) = (self.o.inp.clone(), self.o.out.clone());
        self.subscribe(&inp)?;
        self.advertise(&out)?;
        while !STOP.load(Ordering::Relaxed) {
            let Some((seq, value, size)) = self.receive(200_000_000)? else {
                if !STOP.load(Ordering::Relaxed) {
                    self.check_deadline("relaying")?;
                }
                continue;
            };
            let v = if seq >= END {
                value
            } else {
                relayed_value(seq, value)
            };
            self.send(seq, v, size)?;
        }
        Ok(())
    }

    fn pinger(&mut self) -> Res<()> {
        let (inp, out) = (self.o.inp.clone(), self.o.out.clone());
        self.advertise(&out)?;
        self.subscribe(&inp)?;
        self.hello_until(&|t: &Self| t.hello_back)?;
        touch(&self.o, "ready")?;
        while count_files(&self.o.sync, "ready.") < self.o.wait_ready {
            self.check_deadline("waiting for the other pairs")?;
            std::thread::sleep(Duration::from_millis(1));
        }
        let total = self.o.total() as u32;
        let mut sends: Vec<(u32, u64, usize)> = Vec::with_capacity(total as usize);
        let mut answers: Vec<(u32, u64, usize)> = Vec::with_capacity(total as usize);
        let (mut skipped, mut corrupt) = (0u64, 0u64);
        let mut last_answer: i64 = -1;
        let take = |t: &Self,
                    mut timeout: u64,
                    answers: &mut Vec<(u32, u64, usize)>,
                    last: &mut i64,
                    corrupt: &mut u64|
         -> Res<()> {
            while let Some((seq, value, size)) = t.receive(timeout)? {
                let now = now_ns();
                timeout = 0;
                if seq >= END {
                    continue;
                }
                if seq as u64 >= t.o.total()
                    || value != relayed_value(seq, source_value(seq))
                    || size != t.o.size_of(seq)
                {
                    *corrupt += 1;
                    continue;
                }
                answers.push((seq, now, size));
                *last = (*last).max(seq as i64);
            }
            Ok(())
        };
        let t0 = now_ns();
        let mut next: u32 = 0;
        let mut tick: u64 = 0;
        while next < total {
            let due = if self.o.rate > 0.0 {
                self.tick_ns(t0, tick)
            } else {
                0
            };
            tick += 1;
            loop {
                let now = now_ns();
                if now >= due {
                    break;
                }
                take(
                    self,
                    due - now,
                    &mut answers,
                    &mut last_answer,
                    &mut corrupt,
                )?;
            }
            take(self, 0, &mut answers, &mut last_answer, &mut corrupt)?;
            self.check_deadline("pinging")?;
            // The paper: no message while (last sent - last received) > watermark.
            let over =
                self.o.watermark > 0 && next as i64 - 1 - last_answer > self.o.watermark as i64;
            if over && self.o.rate > 0.0 {
                skipped += 1;
                continue;
            }
            if over {
                take(
                    self,
                    100_000_000,
                    &mut answers,
                    &mut last_answer,
                    &mut corrupt,
                )?;
                continue;
            }
            let size = self.o.size_of(next);
            sends.push((next, now_ns(), size));
            self.send(next, source_value(next), size)?;
            next += 1;
        }
        let mut quiet_since = now_ns();
        while answers.len() < sends.len() && now_ns() - quiet_since < 2_000_000_000 {
            let before = answers.len();
            take(
                self,
                100_000_000,
                &mut answers,
                &mut last_answer,
                &mut corrupt,
            )?;
            if answers.len() != before {
                quiet_since = now_ns();
            }
        }
        write_log(&self.o, "send", &sends, false)?;
        write_log(&self.o, "recv", &answers, true)?;
        std::fs::write(
            format!("{}/{}.stats", self.o.sync, self.o.name),
            format!("skipped {skipped}\ncorrupt {corrupt}\n"),
        )
        .map_err(|e| format!("cannot write stats: {e}"))?;
        touch(&self.o, "done")?;
        if corrupt > 0 {
            return Err(format!("{}: {corrupt} corrupt answers", self.o.name));
        }
        Ok(())
    }
}

fn run() -> Res<()> {
    let o = parse_options()?;
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let handler = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGTERM, handler);
        libc::signal(libc::SIGINT, handler);
    }
    pin_to_cpu(o.cpu, &o.name);
    set_log_level(LogLevel::Warn);
    let role = o.role.clone();
    let mut t = Transport::new(o)?;
    match role.as_str() {
        "sender" => t.sender(),
        "receiver" => t.receiver(),
        "relay" => t.relay(),
        _ => t.pinger(),
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
