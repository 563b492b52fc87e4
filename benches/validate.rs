//! Validating a generated config of about 10,000 lines (300 dashboards with tiles and alerts)
//! in-process, the way `converge validate` does after reading the file. Target: under 100 ms.
//! Also prints the peak memory of one validation.

use std::fmt::Write;
use std::path::PathBuf;

use converge::config::{LoadMode, load_texts};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/mem.rs"]
mod mem;

const DASHBOARDS: usize = 300;

fn generated_config() -> String {
    let mut text = String::from(
        "version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\ncloud:\n  url: http://127.0.0.1:8080\n  keyId: sandbox-key\n  keySecret: ${env:CONVERGE_KEY_SECRET}\nservices:\n  analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n    scaling:\n      numReplicas: 3\n      idleScaling: true\n      idleTimeoutMinutes: 15\nstacks:\n  prod:\n    service: analytics\n    prune: true\n    dashboards:\n",
    );
    for d in 0..DASHBOARDS {
        let _ = write!(
            text,
            "      dash-{d}:\n        name: Dashboard {d}\n        tags: [team-{t}, generated]\n        tiles:\n",
            t = d % 7
        );
        for t in 0..2 {
            let _ = write!(
                text,
                "          - name: Tile {t}\n            x: {x}\n            y: 0\n            w: 12\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n                where: \"service:svc-{d}\"\n                whereLanguage: lucene\n                groupBy: [status]\n",
                x = t * 12
            );
        }
    }
    text.push_str("    alerts:\n");
    for d in 0..DASHBOARDS {
        let _ = write!(
            text,
            "      alert-{d}:\n        name: Alert {d}\n        dashboard: dash-{d}\n        tile: Tile 0\n        threshold: {d}\n        thresholdType: above\n        interval: 5m\n        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n",
        );
    }
    text
}

fn bench(c: &mut Criterion) {
    let text = generated_config();
    let files = vec![(PathBuf::from("generated.yaml"), text)];
    let env = |_: &str| Some("secret".to_string());
    mem::isolated(
        "validate 10k-line config",
        || vec![(PathBuf::from("generated.yaml"), generated_config())],
        |files| load_texts(files, LoadMode::Offline, &env),
    );
    let loaded = load_texts(&files, LoadMode::Offline, &env);
    assert!(loaded.config.is_some(), "{:?}", loaded.diagnostics);
    eprintln!("generated config: {} lines", files[0].1.lines().count());
    c.bench_function("validate 10k-line config", |b| {
        b.iter(|| load_texts(&files, LoadMode::Offline, &env));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
