//! The transport and both clients against real HTTP servers on 127.0.0.1:0: retries and their
//! limits, no blind retry of creates, every error body shape, auth headers, pagination, pacing
//! and concurrency. Retry delays are off (as `CONVERGE_TEST_NO_RETRY_DELAY=1` does).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use converge::api::cloud::CloudClient;
use converge::api::error::FailureKind;
use converge::api::observability::ObservabilityClient;
use converge::api::transport::{Api, Auth, RateLimit, Transport, TransportSettings};
use converge::api::wire::{AlertRequest, PrivateEndpoint, Secret, Series, SeriesQuery};
use converge::output::Printer;
use tokio::io::AsyncReadExt;

const ORG: &str = "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b";
const SERVICE: &str = "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11";

/// One canned answer: status, headers, body.
#[derive(Clone)]
struct Canned {
    status: u16,
    headers: Vec<(&'static str, &'static str)>,
    body: String,
}

fn canned(status: u16, body: impl Into<String>) -> Canned {
    Canned {
        status,
        headers: vec![("content-type", "application/json")],
        body: body.into(),
    }
}

fn typed(status: u16, content_type: &'static str, body: impl Into<String>) -> Canned {
    Canned {
        status,
        headers: vec![("content-type", content_type)],
        body: body.into(),
    }
}

/// What the server saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    uri: String,
    authorization: Option<String>,
}

#[derive(Clone, Default)]
struct Script {
    answers: Arc<Vec<Canned>>,
    seen: Arc<Mutex<Vec<Seen>>>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    delay: Option<Duration>,
}

impl Script {
    fn hits(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn answer(State(script): State<Script>, request: Request) -> Response {
    let index = {
        let mut seen = script.seen.lock().unwrap();
        seen.push(Seen {
            method: request.method().to_string(),
            uri: request.uri().to_string(),
            authorization: request
                .headers()
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
        });
        seen.len() - 1
    };
    let now = script.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    script.max_in_flight.fetch_max(now, Ordering::SeqCst);
    if let Some(delay) = script.delay {
        tokio::time::sleep(delay).await;
    }
    script.in_flight.fetch_sub(1, Ordering::SeqCst);
    let canned = &script.answers[index.min(script.answers.len() - 1)];
    let mut response = Response::new(Body::from(canned.body.clone()));
    *response.status_mut() = StatusCode::from_u16(canned.status).unwrap();
    for (name, value) in &canned.headers {
        response
            .headers_mut()
            .insert(*name, HeaderValue::from_static(value));
    }
    response
}

/// Serves `answers` in order (the last one repeats) and returns the base URL.
async fn serve(answers: Vec<Canned>) -> (String, Script) {
    serve_script(Script {
        answers: Arc::new(answers),
        ..Script::default()
    })
    .await
}

async fn serve_script(script: Script) -> (String, Script) {
    let app = Router::new().fallback(answer).with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{address}"), script)
}

/// A server that reads each request and then drops the connection without answering.
async fn serve_dropping() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let mut buffer = [0u8; 4096];
            let _ = socket.read(&mut buffer).await;
            drop(socket);
        }
    });
    (format!("http://{address}"), accepted)
}

fn settings(parallelism: usize) -> TransportSettings {
    let mut settings = TransportSettings::new(parallelism);
    settings.retry_delays = false;
    settings.timeout = Duration::from_secs(10);
    settings
}

fn roomy() -> RateLimit {
    RateLimit {
        requests: 10_000,
        window: Duration::from_secs(1),
    }
}

fn cloud_with(url: &str, settings: TransportSettings, limit: RateLimit) -> CloudClient {
    let transport = Transport::new(settings, Printer::plain()).unwrap();
    let auth = Auth::Basic {
        key_id: "sandbox-key".into(),
        key_secret: Secret("sandbox-secret".into()),
    };
    CloudClient::new(Api::new(&transport, url, &auth, limit).unwrap(), ORG)
}

fn cloud(url: &str) -> CloudClient {
    cloud_with(url, settings(4), roomy())
}

fn observability(url: &str, token: &str) -> ObservabilityClient {
    let transport = Transport::new(settings(4), Printer::plain()).unwrap();
    let auth = Auth::Bearer(Secret(token.into()));
    ObservabilityClient::new(Api::new(&transport, url, &auth, roomy()).unwrap())
}

fn services_body() -> String {
    format!(
        r#"{{"status":200,"requestId":"r-1","result":[{{"id":"{SERVICE}","name":"analytics","numReplicas":"3","idleScaling":"false","somethingNew":{{"x":1}}}}]}}"#
    )
}

#[tokio::test]
async fn a_429_then_200_is_retried_and_read_tolerantly() {
    let (url, script) = serve(vec![
        Canned {
            status: 429,
            headers: vec![("content-type", "application/json"), ("retry-after", "1")],
            body: r#"{"error":"TOO_MANY_REQUESTS"}"#.into(),
        },
        canned(200, services_body()),
    ])
    .await;
    let services = cloud(&url).list_services().await.unwrap();
    assert_eq!(script.hits(), 2);
    assert_eq!(services.len(), 1);
    assert_eq!(services[0].num_replicas, Some(3.0));
    assert_eq!(services[0].idle_scaling, Some(false));
    let seen = script.seen();
    assert_eq!(seen[0].uri, format!("/v1/organizations/{ORG}/services"));
    assert_eq!(seen[0].method, "GET");
}

#[tokio::test]
async fn the_server_s_wait_replaces_the_backoff() {
    for header in ["retry-after", "x-ratelimit-reset"] {
        let (url, script) = serve(vec![
            Canned {
                status: 429,
                headers: vec![("content-type", "application/json"), (header, "0")],
                body: r#"{"error":"TOO_MANY_REQUESTS"}"#.into(),
            },
            canned(200, services_body()),
        ])
        .await;
        // Delays on, with a backoff of ten minutes: only the server's "0" lets this finish.
        let mut slow = settings(4);
        slow.retry_delays = true;
        slow.min_delay = Duration::from_secs(600);
        slow.max_delay = Duration::from_secs(600);
        let client = cloud_with(&url, slow, roomy());
        let services = tokio::time::timeout(Duration::from_secs(20), client.list_services())
            .await
            .unwrap_or_else(|_| panic!("`{header}: 0` was not honoured"))
            .unwrap();
        assert_eq!(services.len(), 1);
        assert_eq!(script.hits(), 2);
    }
}

#[tokio::test]
async fn a_burst_of_5xx_is_retried_until_success() {
    let (url, script) = serve(vec![
        canned(500, r#"{"status":500,"error":"INTERNAL: boom"}"#),
        typed(502, "text/plain", "bad gateway"),
        canned(503, r#"{"status":503,"error":"UNAVAILABLE: later"}"#),
        canned(200, services_body()),
    ])
    .await;
    let services = cloud(&url).list_services().await.unwrap();
    assert_eq!(services.len(), 1);
    assert_eq!(script.hits(), 4);
}

#[tokio::test]
async fn persistent_5xx_gives_up_after_bounded_attempts_and_names_the_operation() {
    let (url, script) = serve(vec![canned(
        503,
        r#"{"status":503,"error":"SERVICE_UNAVAILABLE: try later","requestId":"req-503"}"#,
    )])
    .await;
    let error = cloud(&url)
        .list_pipes(SERVICE)
        .await
        .expect_err("503 forever must fail");
    assert_eq!(script.hits(), 5);
    assert_eq!(error.attempts, 5);
    assert_eq!(error.kind, FailureKind::Status(503));
    let text = error.to_string();
    assert_eq!(
        text,
        format!(
            "list pipes failed: GET /v1/organizations/{ORG}/services/{SERVICE}/pipes answered 503 Service Unavailable: SERVICE_UNAVAILABLE: try later (requestId req-503, 5 attempts)"
        )
    );
}

#[tokio::test]
async fn an_html_504_is_reduced_to_short_text() {
    let page = "<!DOCTYPE html><html><head><title>504 Gateway Time-out</title></head><body>\
        <center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>";
    let (url, script) = serve(vec![typed(504, "text/html", page)]).await;
    let error = cloud(&url).get_service(SERVICE).await.unwrap_err();
    assert_eq!(script.hits(), 5, "a GET is retried on 504");
    let text = error.to_string();
    assert!(
        text.contains("answered 504 Gateway Timeout: 504 Gateway Time-out nginx"),
        "{text}"
    );
    assert!(!text.contains('<'), "{text}");
    assert!(error.is_ambiguous());
}

#[tokio::test]
async fn bearer_token_is_sent_and_a_plain_text_401_is_not_retried() {
    let page = r#"{"data":[{"id":"d1","name":"API health","tiles":[],"tags":[]}]}"#;
    let (url, script) = serve(vec![
        typed(401, "text/plain", "Unauthorized"),
        canned(200, page),
    ])
    .await;
    let error = observability(&url, "wrong-token")
        .list_dashboards()
        .await
        .unwrap_err();
    assert!(error.is_unauthorized());
    assert_eq!(script.hits(), 1, "401 is not retried");
    assert_eq!(
        error.to_string(),
        "list dashboards failed: GET /api/v2/dashboards answered 401 Unauthorized"
    );
    assert!(!error.to_string().contains("wrong-token"));
    assert_eq!(
        script.seen()[0].authorization.as_deref(),
        Some("Bearer wrong-token")
    );
    let dashboards = observability(&url, "wrong-token")
        .list_dashboards()
        .await
        .unwrap();
    assert_eq!(dashboards[0].name, "API health");
}

#[tokio::test]
async fn basic_auth_carries_key_id_and_secret_on_stack_paths() {
    let (url, script) = serve(vec![canned(
        200,
        r#"{"status":200,"requestId":"r","result":[{"id":"s1","name":"Logs","kind":"log"}]}"#,
    )])
    .await;
    let sources = cloud(&url).list_stack_sources(SERVICE).await.unwrap();
    assert_eq!(sources[0].name, "Logs");
    let seen = script.seen();
    assert_eq!(
        seen[0].uri,
        format!("/v1/organizations/{ORG}/services/{SERVICE}/stack/sources")
    );
    // base64("sandbox-key:sandbox-secret")
    assert_eq!(
        seen[0].authorization.as_deref(),
        Some("Basic c2FuZGJveC1rZXk6c2FuZGJveC1zZWNyZXQ=")
    );
}

#[tokio::test]
async fn a_success_body_that_is_not_json_is_an_error_not_a_panic() {
    let (url, script) = serve(vec![typed(200, "text/html", "<html>maintenance</html>")]).await;
    let error = cloud(&url).list_services().await.unwrap_err();
    assert_eq!(script.hits(), 1);
    assert_eq!(error.kind, FailureKind::Body(200));
    assert!(
        error
            .to_string()
            .contains(r#"expected a JSON object with "result", got a body that is not JSON"#),
        "{error}"
    );
    let (url, _) = serve(vec![canned(200, r#"{"status":200,"requestId":"r-9"}"#)]).await;
    let error = cloud(&url).list_services().await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains(r#"expected a JSON object with "result" (requestId r-9)"#),
        "{error}"
    );
    let (url, _) = serve(vec![canned(
        200,
        r#"{"status":200,"result":{"not":"a list"}}"#,
    )])
    .await;
    let error = cloud(&url).list_services().await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains(r#""result" has an unexpected shape"#),
        "{error}"
    );
}

#[tokio::test]
async fn a_dropped_connection_is_retried_for_reads_and_not_for_creates() {
    let (url, accepted) = serve_dropping().await;
    let client = cloud(&url);
    let error = client.list_services().await.unwrap_err();
    assert_eq!(accepted.load(Ordering::SeqCst), 5);
    assert_eq!(error.kind, FailureKind::Connection, "{error}");
    assert!(error.is_ambiguous());

    let before = accepted.load(Ordering::SeqCst);
    let endpoint = PrivateEndpoint {
        id: "vpce-0a1b2c3d4e5f67890".into(),
        description: "app VPC".into(),
        ..Default::default()
    };
    let error = client
        .create_private_endpoint(SERVICE, &endpoint)
        .await
        .unwrap_err();
    assert_eq!(
        accepted.load(Ordering::SeqCst) - before,
        1,
        "a create is sent once"
    );
    assert!(error.is_ambiguous(), "the server may have acted: {error:?}");
    assert!(
        error.to_string().starts_with(&format!(
            "register private endpoint failed: POST /v1/organizations/{ORG}/services/{SERVICE}/privateEndpoint: connection lost"
        )),
        "{error}"
    );
}

#[tokio::test]
async fn nothing_listening_is_refused_once_never_sent_and_not_retried() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let url = format!("http://{address}");
    drop(listener);
    let client = cloud(&url);
    let error = client
        .create_private_endpoint(SERVICE, &PrivateEndpoint::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind, FailureKind::Refused, "{error}");
    assert!(!error.is_ambiguous(), "the create never left");
    assert_eq!(error.attempts, 1, "a refused port is not tried again");
    assert!(
        error
            .to_string()
            .ends_with(&format!("connection refused: nothing listens on {address}")),
        "{error}"
    );
    let error = client.list_services().await.unwrap_err();
    assert_eq!(error.attempts, 1, "nor is a read: {error}");
}

#[tokio::test]
async fn a_create_that_meets_a_5xx_is_not_retried_and_is_ambiguous() {
    let (url, script) = serve(vec![
        canned(500, r#"{"message":"boom"}"#),
        canned(200, r#"{"data":{"id":"a1","name":"API errors"}}"#),
    ])
    .await;
    let error = observability(&url, "t")
        .create_alert(&AlertRequest {
            name: Some("API errors".into()),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(script.hits(), 1);
    assert!(error.is_ambiguous());
    assert_eq!(
        error.to_string(),
        "create alert failed: POST /api/v2/alerts answered 500 Internal Server Error: boom"
    );
}

#[tokio::test]
async fn a_create_refused_with_429_is_sent_again() {
    let (url, script) = serve(vec![
        canned(429, r#"{"error":"TOO_MANY_REQUESTS"}"#),
        canned(200, r#"{"data":{"id":"a1","name":"API errors"}}"#),
    ])
    .await;
    let alert = observability(&url, "t")
        .create_alert(&AlertRequest::default())
        .await
        .unwrap();
    assert_eq!(alert.id, "a1");
    assert_eq!(script.hits(), 2);
}

#[tokio::test]
async fn a_400_is_definite_and_shows_the_server_words_and_request_id() {
    let (url, script) = serve(vec![canned(
        400,
        r#"{"status":400,"error":"BAD_REQUEST: request body.numReplicas: must be <= 20","requestId":"0b5e"}"#,
    )])
    .await;
    let error = cloud(&url)
        .update_service_scaling(SERVICE, &Default::default())
        .await
        .unwrap_err();
    assert_eq!(script.hits(), 1);
    assert!(!error.is_ambiguous());
    assert_eq!(
        error.to_string(),
        format!(
            "update service scaling failed: PATCH /v1/organizations/{ORG}/services/{SERVICE}/scaling answered 400 Bad Request: BAD_REQUEST: request body.numReplicas: must be <= 20 (requestId 0b5e)"
        )
    );
}

#[tokio::test]
async fn charts_series_errors_use_the_error_member_and_the_read_is_retried() {
    let (url, script) = serve(vec![
        canned(400, r#"{"error":"series must share groupBy"}"#),
        canned(500, r#"{"error":"overloaded"}"#),
        canned(
            200,
            r#"{"data":[{"ts_bucket":60000,"series_0.data":"12"},{"ts_bucket":120000,"series_0.data":3.5},{"nope":1}]}"#,
        ),
    ])
    .await;
    let client = observability(&url, "t");
    let query = SeriesQuery {
        series: vec![Series::default()],
        start_time: 0,
        end_time: 180_000,
        ..Default::default()
    };
    let error = client.chart_series(&query).await.unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("answered 400 Bad Request: series must share groupBy")
    );
    let points = client.chart_series(&query).await.unwrap();
    assert_eq!(
        script.hits(),
        3,
        "the 500 was retried: the query only reads"
    );
    assert_eq!(points.len(), 2);
    assert_eq!(points[0].values, vec![Some(12.0)]);
}

async fn alert_pages(State(seen): State<Arc<Mutex<Vec<String>>>>, request: Request) -> Response {
    let query = request.uri().query().unwrap_or("").to_string();
    seen.lock().unwrap().push(query.clone());
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse::<usize>().ok())
    };
    let limit = param("limit").unwrap_or(50);
    let offset = param("offset").unwrap_or(0);
    let total = 2_500;
    let alerts: Vec<serde_json::Value> = (offset..total.min(offset + limit))
        .map(|i| serde_json::json!({"id": format!("a{i}"), "name": format!("alert {i}"), "threshold": "5"}))
        .collect();
    let body = serde_json::json!({ "data": alerts }).to_string();
    Response::new(Body::from(body))
}

#[tokio::test]
async fn alerts_are_read_page_by_page_until_a_short_page() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new().fallback(alert_pages).with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let alerts = observability(&url, "t").list_alerts().await.unwrap();
    assert_eq!(alerts.len(), 2_500);
    assert_eq!(alerts[2_499].id, "a2499");
    assert_eq!(alerts[0].threshold, Some(5.0));
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            "limit=1000&offset=0",
            "limit=1000&offset=1000",
            "limit=1000&offset=2000"
        ]
    );
}

#[tokio::test]
async fn a_server_that_ignores_offset_does_not_loop_forever() {
    let page: Vec<serde_json::Value> = (0..1000)
        .map(|i| serde_json::json!({"id": format!("a{i}"), "name": format!("alert {i}")}))
        .collect();
    let body = serde_json::json!({ "data": page }).to_string();
    let (url, script) = serve(vec![canned(200, body)]).await;
    let error = observability(&url, "t").list_alerts().await.unwrap_err();
    assert_eq!(script.hits(), 2);
    assert!(
        error.to_string().contains("the same page of alerts again"),
        "{error}"
    );
}

#[tokio::test]
async fn a_delete_whose_retry_finds_nothing_succeeded_earlier() {
    let (url, script) = serve(vec![
        canned(503, r#"{"status":503,"error":"UNAVAILABLE: busy"}"#),
        canned(404, r#"{"status":404,"error":"NOT_FOUND: pipe not found"}"#),
    ])
    .await;
    cloud(&url).delete_pipe(SERVICE, "p1").await.unwrap();
    assert_eq!(script.hits(), 2);
    // A 404 at the first attempt is a real "not found".
    let (url, _) = serve(vec![canned(
        404,
        r#"{"status":404,"error":"NOT_FOUND: pipe not found"}"#,
    )])
    .await;
    let error = cloud(&url).delete_pipe(SERVICE, "p1").await.unwrap_err();
    assert!(error.is_not_found());
}

/// An alert goes with its tile or dashboard on the server, and today's servers answer the
/// alert's DELETE with 404 then: a 404 is the delete done, on the first attempt too.
#[tokio::test]
async fn an_alert_delete_answered_404_is_done_on_any_attempt() {
    let (url, script) = serve(vec![canned(404, r#"{"message":"Not Found"}"#)]).await;
    observability(&url, "t").delete_alert("a1").await.unwrap();
    assert_eq!(script.hits(), 1);
}

#[tokio::test]
async fn deletes_accept_bodies_without_a_result() {
    let (url, _) = serve(vec![canned(200, r#"{"status":200,"requestId":"r"}"#)]).await;
    cloud(&url).delete_pipe(SERVICE, "p1").await.unwrap();
    let (url, _) = serve(vec![canned(200, "{}")]).await;
    observability(&url, "t")
        .delete_dashboard("d1")
        .await
        .unwrap();
}

#[tokio::test]
async fn pipe_quantities_arrive_as_strings() {
    let body = r#"{"status":200,"requestId":"r","result":[{"id":"p1","serviceId":"s","name":"clicks",
        "scaling":{"replicas":"2","replicaCpuMillicores":"500m","replicaMemoryGb":"2Gi"},
        "source":{"kinesis":{"streamName":"clicks"}},"newField":true}]}"#;
    let (url, _) = serve(vec![canned(200, body)]).await;
    let pipes = cloud(&url).list_pipes(SERVICE).await.unwrap();
    let scaling = pipes[0].scaling.clone().unwrap();
    assert_eq!(scaling.replicas, Some(2));
    assert_eq!(scaling.replica_cpu_millicores, Some(500));
    assert_eq!(scaling.replica_memory_gb, Some(2.0));
}

#[tokio::test]
async fn parallelism_bounds_requests_in_flight() {
    let (url, script) = serve_script(Script {
        answers: Arc::new(vec![canned(200, services_body())]),
        delay: Some(Duration::from_millis(40)),
        ..Script::default()
    })
    .await;
    let client = cloud_with(&url, settings(2), roomy());
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let client = client.clone();
        tasks.spawn(async move { client.list_services().await });
    }
    while let Some(result) = tasks.join_next().await {
        result.unwrap().unwrap();
    }
    assert_eq!(script.hits(), 8);
    assert!(script.max_in_flight.load(Ordering::SeqCst) <= 2);
}

#[tokio::test]
async fn every_request_takes_a_slot_of_the_key_s_rate_limit() {
    let (url, script) = serve(vec![canned(200, services_body())]).await;
    let limit = RateLimit {
        requests: 3,
        window: Duration::from_secs(600),
    };
    let client = cloud_with(&url, settings(4), limit);
    for _ in 0..3 {
        client.list_services().await.unwrap();
    }
    assert_eq!(script.hits(), 3);
    assert!(
        !client
            .api()
            .bucket()
            .try_acquire_at(tokio::time::Instant::now()),
        "three requests used the whole window"
    );
    // A second key has its own bucket.
    let other = cloud_with(&url, settings(4), limit);
    assert!(
        other
            .api()
            .bucket()
            .try_acquire_at(tokio::time::Instant::now())
    );
}

#[tokio::test]
async fn a_key_waiting_for_its_rate_limit_does_not_hold_up_the_other_api() {
    let (url, script) = serve(vec![canned(200, services_body())]).await;
    let (obs_url, _) = serve(vec![canned(200, r#"{"data":[]}"#)]).await;
    // One request in flight at a time over both APIs; the cloud key allows one per 10 minutes.
    let transport = Transport::new(settings(1), Printer::plain()).unwrap();
    let cloud_limit = RateLimit {
        requests: 1,
        window: Duration::from_secs(600),
    };
    let basic = Auth::Basic {
        key_id: "k".into(),
        key_secret: Secret("s".into()),
    };
    let cloud = CloudClient::new(
        Api::new(&transport, &url, &basic, cloud_limit).unwrap(),
        ORG,
    );
    let observability = ObservabilityClient::new(
        Api::new(
            &transport,
            &obs_url,
            &Auth::Bearer(Secret("t".into())),
            roomy(),
        )
        .unwrap(),
    );
    cloud.list_services().await.unwrap();
    let waiting = tokio::spawn({
        let cloud = cloud.clone();
        async move { cloud.list_services().await }
    });
    tokio::task::yield_now().await;
    // Without the fix this would wait ten minutes behind the cloud request's permit.
    let dashboards = tokio::time::timeout(Duration::from_secs(20), observability.list_dashboards())
        .await
        .expect("the observability request must not wait for the cloud key")
        .unwrap();
    assert!(dashboards.is_empty());
    assert_eq!(script.hits(), 1, "the second cloud request is still paced");
    waiting.abort();
}

#[tokio::test]
async fn a_timed_out_create_is_ambiguous_and_sent_once() {
    let (url, script) = serve_script(Script {
        answers: Arc::new(vec![canned(200, r#"{"data":{"id":"x"}}"#)]),
        delay: Some(Duration::from_secs(5)),
        ..Script::default()
    })
    .await;
    let mut settings = settings(4);
    settings.timeout = Duration::from_millis(200);
    let transport = Transport::new(settings, Printer::plain()).unwrap();
    let client = ObservabilityClient::new(
        Api::new(&transport, &url, &Auth::Bearer(Secret("t".into())), roomy()).unwrap(),
    );
    let error = client
        .create_dashboard(&Default::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind, FailureKind::Timeout);
    assert!(error.is_ambiguous());
    assert_eq!(script.hits(), 1);
}

#[test]
fn plain_http_is_refused_for_remote_hosts() {
    let transport = Transport::new(settings(1), Printer::plain()).unwrap();
    let auth = Auth::Bearer(Secret("t".into()));
    let error = Api::new(&transport, "http://obs.example.com", &auth, roomy())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("http:// is allowed only for loopback"),
        "{error}"
    );
    assert!(Api::new(&transport, "https://obs.example.com", &auth, roomy()).is_ok());
    assert!(Api::new(&transport, "http://127.0.0.1:9", &auth, roomy()).is_ok());
}

// ---------------------------------------------------------------------------------------------
// The live reader against a small server that answers the list paths (the sandbox replaces it
// once it lands).

mod live_reader {
    use std::sync::{Arc, Mutex};

    use axum::Router;
    use axum::body::Body;
    use axum::extract::{Request, State};
    use axum::http::StatusCode;
    use axum::response::Response;
    use converge::api::clients::{Clients, RateLimits};
    use converge::api::transport::Transport;
    use converge::config::model::{
        BackupChecks, CloudSettings, Config, Located, ObservabilitySettings, PipeConfig,
        SecretValue, ServiceConfig, StackConfig, StackTarget,
    };
    use converge::diagnostic::Span;
    use converge::live::reader;
    use converge::output::Printer;
    use indexmap::IndexMap;
    use serde_json::json;

    use super::{ORG, settings};

    const ANALYTICS: &str = "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11";
    const REPORTING: &str = "2d8e9f00-1a2b-4c3d-8e9f-0a1b2c3d4e5f";
    const ORDERS: &str = "0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77";

    type Log = Arc<Mutex<Vec<String>>>;

    fn envelope(result: serde_json::Value) -> Response {
        let body = json!({"status": 200, "requestId": "r", "result": result});
        Response::new(Body::from(body.to_string()))
    }

    fn status(code: u16, body: &str) -> Response {
        let mut response = Response::new(Body::from(body.to_string()));
        *response.status_mut() = StatusCode::from_u16(code).unwrap();
        response
    }

    /// Answers the reads of the contract for one organization; stacks behind the token
    /// `good-token` (observability) or the demo key (cloud).
    async fn world(State(log): State<Log>, request: Request) -> Response {
        let path = request.uri().path().to_string();
        let auth = request
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        log.lock().unwrap().push(format!(
            "{} {}",
            request.method(),
            request.uri().path_and_query().unwrap()
        ));
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match segments.as_slice() {
            ["api", "v2", rest @ ..] => {
                // `old-token` reaches a server generation without a sources list.
                if auth != "Bearer good-token" && auth != "Bearer old-token" {
                    return status(401, "Unauthorized");
                }
                let data = match rest {
                    ["dashboards"] => json!([{"id": "d1", "name": "Standalone", "tiles": []}]),
                    ["alerts"] => json!([{"id": "a1", "name": "Standalone alert"}]),
                    ["sources"] if auth == "Bearer good-token" => {
                        json!([{"id": "s1", "name": "Logs"}])
                    }
                    _ => return status(404, "<html><body>Cannot GET</body></html>"),
                };
                Response::new(Body::from(json!({ "data": data }).to_string()))
            }
            ["v1", "organizations", org, rest @ ..] if *org == ORG => match rest {
                ["services"] => envelope(json!([
                    {"id": ANALYTICS, "name": "analytics", "numReplicas": 2},
                    {"id": REPORTING, "name": "reporting", "numReplicas": "1"},
                ])),
                ["services", id, "pipes"] if *id == ANALYTICS || *id == REPORTING => {
                    let pipes = if *id == ANALYTICS {
                        json!([{"id": ORDERS, "name": "orders",
                                "scaling": {"replicas": 1, "replicaCpuMillicores": "250m"},
                                "source": {"kafka": {"brokers": "b:9092"}}}])
                    } else {
                        json!([])
                    };
                    envelope(pipes)
                }
                ["services", id, "backups"] if *id == ANALYTICS => envelope(json!([
                    {"id": "b1", "status": "done", "finishedAt": "2026-11-21T00:00:00Z"}
                ])),
                ["services", id, "backups", "b1"] if *id == ANALYTICS => {
                    envelope(json!({"id": "b1", "status": "done"}))
                }
                ["services", _, "backups", _] => status(
                    404,
                    r#"{"status":404,"error":"NOT_FOUND: backup not found","requestId":"x"}"#,
                ),
                ["services", id, "stack", kind] if *id == ANALYTICS => match *kind {
                    "dashboards" => envelope(json!([{"id": "m1", "name": "API health"}])),
                    "alerts" => envelope(json!([{"id": "ma1", "name": "API errors"}])),
                    "sources" => envelope(json!([{"id": "ms1", "name": "Logs"}])),
                    _ => status(404, "<html><body>Cannot GET</body></html>"),
                },
                _ => status(
                    404,
                    r#"{"status":404,"error":"NOT_FOUND: no such service","requestId":"y"}"#,
                ),
            },
            _ => status(
                401,
                r#"{"status":401,"error":"UNAUTHORIZED: Key is not found"}"#,
            ),
        }
    }

    async fn serve_world() -> (String, Log) {
        let log: Log = Arc::default();
        let app = Router::new().fallback(world).with_state(log.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (url, log)
    }

    fn at(line: usize) -> Span {
        let line = u32::try_from(line).expect("a test's line fits a span");
        Span::new(0, line * 100, 4, line, 3)
    }

    fn located<T>(value: T, line: usize) -> Located<T> {
        Located::new(value, at(line))
    }

    fn service(key: &str, id: &str, line: usize) -> ServiceConfig {
        ServiceConfig {
            key: located(key.to_string(), line),
            id: located(id.to_string(), line + 1),
            scaling: None,
            private_endpoints: None,
            pipes: IndexMap::new(),
            reverse_endpoints: Default::default(),
            backups: None,
            pipe_compute: None,
            settings: Default::default(),
        }
    }

    fn pipe(key: &str, id: &str, line: usize, absent: bool) -> PipeConfig {
        PipeConfig {
            absent,
            ..PipeConfig::by_id(
                located(key.to_string(), line),
                located(id.to_string(), line + 1),
            )
        }
    }

    fn stack(key: &str, target: StackTarget, line: usize) -> StackConfig {
        StackConfig {
            key: located(key.to_string(), line),
            target,
            prune: false,
            generation: None,
            dashboards: IndexMap::new(),
            alerts: IndexMap::new(),
            instance_names: Vec::new(),
            key_parameter: None,
            read_webhooks: false,
            webhooks: IndexMap::new(),
            sources: IndexMap::new(),
            saved_searches: IndexMap::new(),
        }
    }

    fn config(url: &str, token: &str) -> Config {
        Config {
            version: 1,
            organization: located(ORG.to_string(), 2),
            cloud: Some(CloudSettings {
                url: Some(located(url.to_string(), 4)),
                key_id: Some(located("sandbox-key".to_string(), 5)),
                key_secret: Some(SecretValue {
                    reference: "${env:CONVERGE_KEY_SECRET}".into(),
                    value: Some("sandbox-secret".into()),
                    span: at(6),
                }),
            }),
            observability: Some(ObservabilitySettings {
                url: Some(located(url.to_string(), 8)),
                token: Some(SecretValue {
                    reference: "${env:CONVERGE_OBS_TOKEN}".into(),
                    value: Some(token.into()),
                    span: at(9),
                }),
            }),
            services: IndexMap::new(),
            stacks: IndexMap::new(),
            ignore: Vec::new(),
            drift: Default::default(),
            policy: Vec::new(),
        }
    }

    fn clients(config: &Config) -> Clients {
        let transport = Transport::new(settings(4), Printer::plain()).unwrap();
        Clients::from_config(config, &transport, &RateLimits::default()).unwrap()
    }

    #[tokio::test]
    async fn reads_everything_a_config_needs_with_one_request_per_list() {
        let (url, log) = serve_world().await;
        let mut config = config(&url, "good-token");
        let mut analytics = service("analytics", ANALYTICS, 20);
        analytics
            .pipes
            .insert("orders".into(), pipe("orders", ORDERS, 30, false));
        analytics.backups = Some(BackupChecks {
            span: at(40),
            max_age_hours: Some(located(26.0, 41)),
            keep: vec![located("b1".into(), 42), located("b-gone".into(), 43)],
        });
        config.services.insert("analytics".into(), analytics);
        // A service with no pipes and no backup checks costs no request of its own.
        config
            .services
            .insert("reporting".into(), service("reporting", REPORTING, 50));
        config.stacks.insert(
            "prod".into(),
            stack(
                "prod",
                StackTarget::Managed {
                    service: located("analytics".into(), 61),
                },
                60,
            ),
        );
        config
            .stacks
            .insert("obs".into(), stack("obs", StackTarget::Observability, 70));

        let live = reader::read(&config, &clients(&config), &Printer::plain())
            .await
            .unwrap();

        assert_eq!(live.services.len(), 2);
        assert_eq!(live.services[REPORTING].num_replicas, Some(1.0));
        let orders = &live.pipes[ANALYTICS][0];
        assert_eq!(
            orders.scaling.as_ref().unwrap().replica_cpu_millicores,
            Some(250)
        );
        assert!(!live.pipes.contains_key(REPORTING));
        assert_eq!(live.backups[ANALYTICS].len(), 1);
        assert!(live.kept_backups[&(ANALYTICS.into(), "b1".into())].is_some());
        assert!(live.kept_backups[&(ANALYTICS.into(), "b-gone".into())].is_none());
        assert_eq!(live.stacks["prod"].dashboards[0].name, "API health");
        assert_eq!(live.stacks["prod"].alerts[0].id, "ma1");
        assert_eq!(live.stacks["prod"].sources[0].id, "ms1");
        assert_eq!(live.stacks["obs"].dashboards[0].name, "Standalone");
        assert_eq!(live.stacks["obs"].alerts[0].name, "Standalone alert");
        assert_eq!(live.stacks["obs"].sources[0].name, "Logs");

        let mut requests = log.lock().unwrap().clone();
        requests.sort();
        let org = format!("/v1/organizations/{ORG}");
        let mut expected = vec![
            "GET /api/v2/alerts?limit=1000&offset=0".to_string(),
            "GET /api/v2/dashboards".to_string(),
            "GET /api/v2/sources".to_string(),
            format!("GET {org}/services"),
            format!("GET {org}/services/{ANALYTICS}/backups"),
            format!("GET {org}/services/{ANALYTICS}/backups/b-gone"),
            format!("GET {org}/services/{ANALYTICS}/backups/b1"),
            format!("GET {org}/services/{ANALYTICS}/pipes"),
            format!("GET {org}/services/{ANALYTICS}/stack/alerts"),
            format!("GET {org}/services/{ANALYTICS}/stack/dashboards"),
            format!("GET {org}/services/{ANALYTICS}/stack/sources"),
        ];
        expected.sort();
        assert_eq!(requests, expected);
    }

    #[tokio::test]
    async fn every_problem_is_reported_at_its_config_line() {
        let (url, log) = serve_world().await;
        let mut config = config(&url, "wrong-token");
        let missing_id = "99999999-0000-4000-8000-000000000000";
        let mut ghost = service("ghost", missing_id, 20);
        ghost
            .pipes
            .insert("orders".into(), pipe("orders", ORDERS, 24, false));
        config.services.insert("ghost".into(), ghost);
        let mut reporting = service("reporting", REPORTING, 30);
        reporting.pipes.insert(
            "lost".into(),
            pipe("lost", "00000000-dead-4000-8000-000000000000", 32, false),
        );
        reporting.pipes.insert(
            "gone".into(),
            pipe("gone", "11111111-dead-4000-8000-000000000000", 35, true),
        );
        config.services.insert("reporting".into(), reporting);
        config.stacks.insert(
            "prod".into(),
            stack(
                "prod",
                StackTarget::Managed {
                    service: located("ghost".into(), 61),
                },
                60,
            ),
        );
        config
            .stacks
            .insert("obs".into(), stack("obs", StackTarget::Observability, 70));

        let problems = reader::read(&config, &clients(&config), &Printer::plain())
            .await
            .unwrap_err();
        let summary: Vec<(String, u32)> = problems
            .iter()
            .map(|p| (p.code.as_str().to_string(), p.span.unwrap().line))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("live::service-not-found".to_string(), 21),
                ("live::pipe-not-found".to_string(), 33),
                ("live::unauthorized".to_string(), 70),
            ],
            "{problems:#?}"
        );
        assert!(problems[0].message.contains(missing_id));
        assert!(
            problems[0]
                .help
                .as_deref()
                .unwrap()
                .contains(&format!("analytics ({ANALYTICS})"))
        );
        assert!(problems[1].message.starts_with("pipe.reporting.lost:"));
        assert!(
            problems[2]
                .message
                .starts_with("stack.obs: the observability API refused the credentials"),
            "{}",
            problems[2].message
        );
        assert!(!format!("{problems:?}").contains("wrong-token"));
        // No pipes read for a service that does not exist.
        let requests = log.lock().unwrap().clone();
        assert!(
            !requests
                .iter()
                .any(|r| r.contains(&format!("{missing_id}/pipes")))
        );
    }

    #[tokio::test]
    async fn refused_cloud_credentials_point_at_the_key_and_the_managed_stack() {
        let (url, _) = serve_world().await;
        let mut config = config(&url, "good-token");
        config.organization = located("00000000-0000-4000-8000-00000000bad0".into(), 2);
        config
            .services
            .insert("analytics".into(), service("analytics", ANALYTICS, 20));
        config.stacks.insert(
            "prod".into(),
            stack(
                "prod",
                StackTarget::Managed {
                    service: located("analytics".into(), 61),
                },
                60,
            ),
        );
        let problems = reader::read(&config, &clients(&config), &Printer::plain())
            .await
            .unwrap_err();
        let places: Vec<(&str, u32)> = problems
            .iter()
            .map(|p| (p.code.as_str(), p.span.unwrap().line))
            .collect();
        assert_eq!(
            places,
            vec![("live::unauthorized", 5), ("live::unauthorized", 60)],
            "{problems:#?}"
        );
        assert!(
            problems[0]
                .message
                .contains("UNAUTHORIZED: Key is not found")
        );
        assert!(!format!("{problems:?}").contains("sandbox-secret"));
    }

    #[test]
    fn plain_http_to_a_remote_host_points_at_the_url_line() {
        let mut config = config("http://api.example.com", "t");
        config
            .services
            .insert("analytics".into(), service("analytics", ANALYTICS, 20));
        let transport = Transport::new(settings(1), Printer::plain()).unwrap();
        let problems =
            Clients::from_config(&config, &transport, &RateLimits::default()).unwrap_err();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].code.as_str(), "live::url");
        assert_eq!(problems[0].span.unwrap().line, 4);
        assert!(problems[0].message.contains("loopback"));
    }

    #[tokio::test]
    async fn a_standalone_api_without_a_sources_list_reads_as_no_sources() {
        let (url, _) = serve_world().await;
        let mut config = config(&url, "old-token");
        config
            .stacks
            .insert("obs".into(), stack("obs", StackTarget::Observability, 70));
        let live = reader::read(&config, &clients(&config), &Printer::plain())
            .await
            .unwrap();
        assert!(live.stacks["obs"].sources.is_empty());
        assert_eq!(live.stacks["obs"].dashboards.len(), 1);
        assert!(
            live.services.is_empty(),
            "no services in the config: no services read"
        );
    }

    #[test]
    fn synchronous_commands_connect_and_read_in_one_call() {
        let server = tokio::runtime::Runtime::new().unwrap();
        let (url, log) = server.block_on(serve_world());
        let mut config = config(&url, "good-token");
        let mut analytics = service("analytics", ANALYTICS, 20);
        analytics
            .pipes
            .insert("orders".into(), pipe("orders", ORDERS, 30, false));
        config.services.insert("analytics".into(), analytics);
        let (_runtime, clients, live) =
            converge::commands::connect::connect_and_read_blocking_with(
                &config,
                4,
                RateLimits::default(),
                &Printer::plain(),
            )
            .unwrap();
        assert!(clients.cloud.is_some());
        assert!(clients.observability.is_none(), "no stack uses it");
        assert_eq!(live.pipes[ANALYTICS].len(), 1);
        assert_eq!(log.lock().unwrap().len(), 2);
    }
}

/// An observability client whose writes stop once `stop` is `true`.
fn stoppable(
    url: &str,
    settings: TransportSettings,
    limit: RateLimit,
) -> (ObservabilityClient, tokio::sync::watch::Sender<bool>) {
    let transport = Transport::new(settings, Printer::plain()).unwrap();
    let auth = Auth::Bearer(Secret("t".into()));
    let (stop, gate) = tokio::sync::watch::channel(false);
    let api = Api::new(&transport, url, &auth, limit)
        .unwrap()
        .stop_writes_on(gate);
    (ObservabilityClient::new(api), stop)
}

#[tokio::test]
async fn a_stopped_api_sends_no_write_but_still_reads() {
    let (url, script) = serve(vec![canned(200, r#"{"data":[]}"#)]).await;
    let (client, stop) = stoppable(&url, settings(4), roomy());
    stop.send_replace(true);
    let error = client
        .create_alert(&AlertRequest::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind, FailureKind::Stopped);
    assert!(error.is_stopped() && !error.is_ambiguous() && !error.is_retryable());
    assert_eq!(script.hits(), 0);
    assert!(client.list_dashboards().await.unwrap().is_empty());
    assert_eq!(script.hits(), 1);
}

#[tokio::test]
async fn a_write_waiting_for_its_token_is_stopped_and_never_sent() {
    let (url, script) = serve(vec![canned(200, r#"{"data":[]}"#)]).await;
    let one_a_minute = RateLimit {
        requests: 1,
        window: Duration::from_secs(60),
    };
    let (client, stop) = stoppable(&url, settings(4), one_a_minute);
    client.list_dashboards().await.unwrap();
    let waiting = tokio::spawn(async move {
        client
            .delete_alert("a1")
            .await
            .map_err(|error| (error.kind.clone(), error.attempts))
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send_replace(true);
    // Bounded: without the stop the token would come a minute later.
    let result = tokio::time::timeout(Duration::from_secs(20), waiting)
        .await
        .expect("the stopped write returns before its token comes")
        .unwrap();
    assert_eq!(result, Err((FailureKind::Stopped, 1)));
    assert_eq!(script.hits(), 1);
}

#[tokio::test]
async fn a_retry_stopped_after_a_5xx_reports_the_5xx_not_a_write_never_sent() {
    let (url, script) = serve(vec![canned(503, r#"{"message":"later"}"#)]).await;
    let mut slow_retries = settings(4);
    slow_retries.retry_delays = true;
    slow_retries.min_delay = Duration::from_secs(60);
    slow_retries.max_delay = Duration::from_secs(60);
    let (client, stop) = stoppable(&url, slow_retries, roomy());
    let updating = tokio::spawn(async move {
        client
            .update_alert("a1", &AlertRequest::default())
            .await
            .map_err(|error| (error.kind.clone(), error.attempts))
    });
    for _ in 0..200 {
        if script.hits() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(script.hits(), 1);
    stop.send_replace(true);
    let result = tokio::time::timeout(Duration::from_secs(20), updating)
        .await
        .expect("the retry's backoff ends with the stop")
        .unwrap();
    // The 503 may have been acted on: that is the outcome, with the one attempt made.
    assert_eq!(result, Err((FailureKind::Status(503), 1)));
    assert_eq!(script.hits(), 1);
}
