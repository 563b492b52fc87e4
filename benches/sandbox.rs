//! How many GET requests per second the sandbox serves, with faults and rate limits off.
//!
//! `sequential`: one keep-alive connection, one request at a time (latency-bound).
//! `concurrent`: 64 requests over 8 connections at once (throughput-bound).
//! Criterion's `thrpt` line is requests per second. Also prints the process's peak memory.

use converge::sandbox::{DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG, SandboxHandle, SandboxOptions};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[path = "support/mem.rs"]
mod mem;

fn basic() -> String {
    use base64::Engine;
    let raw = format!("{DEMO_KEY_ID}:{DEMO_KEY_SECRET}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

fn gets(c: &mut Criterion) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let sandbox = SandboxHandle::spawn(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    })
    .expect("the sandbox starts");
    let url = format!(
        "{}/v1/organizations/{DEMO_ORG}/services/1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11/pipes",
        sandbox.url()
    );
    let auth = basic();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let client = reqwest::Client::new();
    let get = |client: reqwest::Client, url: String, auth: String| async move {
        let response = client
            .get(url)
            .header("Authorization", auth)
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status(), 200);
        response.bytes().await.expect("a body").len()
    };

    let mut group = c.benchmark_group("sandbox_get");
    group.throughput(Throughput::Elements(1));
    group.bench_function("sequential", |b| {
        b.iter(|| runtime.block_on(get(client.clone(), url.clone(), auth.clone())))
    });
    group.throughput(Throughput::Elements(64));
    group.bench_function("concurrent", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut tasks = Vec::new();
                for _ in 0..8 {
                    let (client, url, auth) = (client.clone(), url.clone(), auth.clone());
                    tasks.push(tokio::spawn(async move {
                        let mut bytes = 0;
                        for _ in 0..8 {
                            bytes += get(client.clone(), url.clone(), auth.clone()).await;
                        }
                        bytes
                    }));
                }
                let mut total = 0;
                for task in tasks {
                    total += task.await.expect("a task");
                }
                total
            })
        })
    });
    group.finish();
    // The sandbox and the client share this process: its peak bounds the sandbox's.
    mem::report_process_peak("bench process (sandbox + client) after every GET above");
    drop(sandbox);
}

criterion_group!(benches, gets);
criterion_main!(benches);
