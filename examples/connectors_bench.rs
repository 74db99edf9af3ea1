//! Parse one session file with a connector, several times, and print its throughput.
//!
//! usage: connectors_bench AGENT FILE [RUNS]   (run through bench/connectors.sh)

use cm::episodic::connectors::{ResumePoint, SourceFile, SourceKind, by_slug};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: connectors_bench AGENT FILE [RUNS]");
        std::process::exit(2);
    }
    let connector = by_slug(&args[1]).unwrap_or_else(|| {
        eprintln!("unknown agent {}", args[1]);
        std::process::exit(2)
    });
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let file = SourceFile {
        agent: connector.slug(),
        path: args[2].clone().into(),
        kind: SourceKind::Lines,
        parent_session_id: None,
    };
    let bytes = std::fs::metadata(&file.path).map(|m| m.len()).unwrap_or(0);
    let mut secs = Vec::new();
    let mut messages = 0;
    let mut lines = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let out = connector
            .parse(&file, &ResumePoint::default())
            .expect("parse");
        secs.push(t.elapsed().as_secs_f64());
        messages = out.messages.len();
        lines = out.next.line - 1;
    }
    secs.sort_by(f64::total_cmp);
    let median = secs[secs.len() / 2];
    let best = secs[0];
    println!(
        "{:<7} lines={lines} messages={messages} MB={:.1} median_s={median:.3} messages/s={:.0} \
         (best run {:.0}) lines/s={:.0} MB/s={:.0}",
        args[1],
        bytes as f64 / 1e6,
        messages as f64 / median,
        messages as f64 / best,
        lines as f64 / median,
        bytes as f64 / 1e6 / median
    );
}
