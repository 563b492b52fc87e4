//! Pacing under a rate limit: 30 GETs through the transport against a local server that enforces
//! a sliding window of 10 requests per second (the cloud API's 10 per 10 s, scaled down 10×).
//! The rate limit allows them to end after 2 windows (10 at once, 10 after one window, 10 after
//! two); the bench reports how close the transport comes to that and fails on any 429.
//!
//! Also: the transport's own cost per request with no limit in the way.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use converge::api::cloud::CloudClient;
use converge::api::transport::{Api, Auth, RateLimit, Transport, TransportSettings};
use converge::api::wire::Secret;
use converge::output::Printer;
use criterion::{Criterion, criterion_group, criterion_main};

const WINDOW: Duration = Duration::from_secs(1);
const LIMIT: usize = 10;
const REQUESTS: usize = 30;

#[derive(Clone, Default)]
struct Limiter {
    arrivals: Arc<Mutex<VecDeque<Instant>>>,
    limited: Arc<AtomicUsize>,
    enforce: bool,
}

async fn services(State(limiter): State<Limiter>) -> Response {
    if limiter.enforce {
        let now = Instant::now();
        let mut arrivals = limiter.arrivals.lock().unwrap();
        while arrivals
            .front()
            .is_some_and(|t| now.duration_since(*t) >= WINDOW)
        {
            arrivals.pop_front();
        }
        if arrivals.len() >= LIMIT {
            limiter.limited.fetch_add(1, Ordering::SeqCst);
            let mut response = Response::new(Body::from(r#"{"error":"TOO_MANY_REQUESTS"}"#));
            *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
            return response;
        }
        arrivals.push_back(now);
    }
    Response::new(Body::from(
        r#"{"status":200,"requestId":"r","result":[{"id":"s1","name":"analytics","numReplicas":"2"}]}"#,
    ))
}

fn serve(runtime: &tokio::runtime::Runtime, limiter: Limiter) -> String {
    runtime.block_on(async {
        let app = Router::new().fallback(services).with_state(limiter);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        url
    })
}

fn client(url: &str, limit: RateLimit) -> CloudClient {
    let transport = Transport::new(TransportSettings::new(4), Printer::plain()).unwrap();
    let auth = Auth::Basic {
        key_id: "bench".into(),
        key_secret: Secret("bench".into()),
    };
    CloudClient::new(
        Api::new(&transport, url, &auth, limit).unwrap(),
        "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b",
    )
}

async fn burst(client: &CloudClient, count: usize) {
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..count {
        let client = client.clone();
        tasks.spawn(async move { client.list_services().await });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap().unwrap();
    }
}

fn pacing(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let limiter = Limiter {
        enforce: true,
        ..Limiter::default()
    };
    let url = serve(&runtime, limiter.clone());
    let limit = RateLimit {
        requests: LIMIT as u32,
        window: WINDOW,
    };
    let allowed = WINDOW * ((REQUESTS - 1) / LIMIT) as u32;
    let mut group = c.benchmark_group("pacing");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(100));
    group.measurement_time(Duration::from_secs(25));
    let mut slowest = Duration::ZERO;
    group.bench_function("30 GETs at 10 per 1 s", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                // A fresh key each time, and a server window that has emptied: each run
                // starts as a new `converge plan` would. The wait is not measured.
                std::thread::sleep(WINDOW);
                let client = client(&url, limit);
                let started = Instant::now();
                runtime.block_on(burst(&client, REQUESTS));
                let elapsed = started.elapsed();
                slowest = slowest.max(elapsed);
                total += elapsed;
            }
            total
        })
    });
    group.finish();
    let limited = limiter.limited.load(Ordering::SeqCst);
    eprintln!(
        "pacing: {REQUESTS} requests, the limit allows {allowed:?}, slowest run {slowest:?} ({:+.1}%), 429s received: {limited}",
        (slowest.as_secs_f64() / allowed.as_secs_f64() - 1.0) * 100.0
    );
    assert_eq!(limited, 0, "the transport must pace itself below the limit");
}

fn overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = serve(&runtime, Limiter::default());
    let client = client(
        &url,
        RateLimit {
            requests: 1_000_000,
            window: Duration::from_secs(1),
        },
    );
    c.bench_function("one GET through the transport, no limit", |b| {
        b.iter(|| runtime.block_on(client.list_services()).unwrap())
    });
}

criterion_group!(benches, pacing, overhead);
criterion_main!(benches);
