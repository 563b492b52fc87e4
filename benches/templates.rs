//! Validating a config whose one alert template fans out to 10,000 instances (`forEach` with
//! 10,000 keys), in-process, the way `converge validate` does after reading the file: the
//! expansion, the schema check of every instance and the rules stay linear. Target: under one
//! second. Also prints the peak memory of one validation.

use std::fmt::Write;
use std::path::PathBuf;

use converge::config::{LoadMode, load_texts};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/mem.rs"]
mod mem;

const INSTANCES: usize = 10_000;

fn generated_config() -> String {
    let mut text = String::from(
        "version: 1
organization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b
templates:
  service-errors:
    parameters:
      service: string
      threshold: { type: number, default: 100 }
    alert:
      name: ${service} errors
      dashboard: health
      tile: Errors
      threshold: ${threshold}
      thresholdType: above
      interval: 5m
      channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
      message: Errors are up on ${service}
stacks:
  shared:
    api: observability
    dashboards:
      health:
        name: Health
        tiles:
          - name: Errors
            x: 0
            y: 0
            w: 12
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: count
                where: level:error
                whereLanguage: lucene
    alerts:
      service-errors:
        template: service-errors
        forEach:
",
    );
    for i in 0..INSTANCES {
        let _ = writeln!(
            text,
            "          - {{ key: svc-{i}, service: svc-{i}, threshold: {} }}",
            i % 500
        );
    }
    text
}

fn bench(c: &mut Criterion) {
    let files = vec![(PathBuf::from("fan-out.yaml"), generated_config())];
    let env = |_: &str| None;
    mem::isolated(
        "validate a 10,000-instance fan-out",
        || vec![(PathBuf::from("fan-out.yaml"), generated_config())],
        |files| load_texts(files, LoadMode::Offline, &env),
    );
    let loaded = load_texts(&files, LoadMode::Offline, &env);
    let config = loaded.config.as_ref();
    assert!(config.is_some(), "{:?}", loaded.diagnostics);
    assert_eq!(
        config.map(|c| c.stacks["shared"].alerts.len()),
        Some(INSTANCES)
    );
    c.bench_function("validate a 10,000-instance fan-out", |b| {
        b.iter(|| load_texts(&files, LoadMode::Offline, &env));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
