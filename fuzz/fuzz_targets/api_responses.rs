//! Reading API answers from arbitrary bytes, the way the clients do: a success body's `result`
//! (cloud) or `data` (observability) as every wire type the clients read, chart series points,
//! an error body's words and request id, and the retry headers. Nothing may panic.
#![no_main]

use converge::api::error::server_words;
use converge::api::transport::{Answer, Call, exhausted_until, read_member, server_delay};
use converge::api::wire::{
    Alert, Backup, Dashboard, Pipe, PrivateEndpoint, SeriesPoint, Service, Source,
};
use libfuzzer_sys::fuzz_target;
use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

fn read_all(call: &Call, answer: &Answer, member: &str) {
    let _ = read_member::<Vec<Service>>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Service>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Vec<Pipe>>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Vec<PrivateEndpoint>>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Vec<Backup>>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Vec<Dashboard>>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Dashboard>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Vec<Alert>>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Alert>(call, answer, member).map_err(|e| e.to_string());
    let _ = read_member::<Vec<Source>>(call, answer, member).map_err(|e| e.to_string());
}

fuzz_target!(|data: &[u8]| {
    let call = Call::new("fuzz read", Method::GET, "/fuzz");
    let answer = Answer {
        status: 200,
        body: data.to_vec(),
    };
    read_all(&call, &answer, "result");
    read_all(&call, &answer, "data");

    // charts/series: `data` is an array of point objects; the first byte picks the series count.
    let series = usize::from(data.first().copied().unwrap_or(0) % 7);
    if let Ok(points) = read_member::<Vec<Value>>(&call, &answer, "data") {
        for object in points.iter().filter_map(Value::as_object) {
            let _ = SeriesPoint::from_json(object, series);
        }
    }

    let _ = server_words(data);

    // Retry headers: the body's lines as `name: value` pairs.
    let mut headers = HeaderMap::new();
    for line in data.split(|b| *b == b'\n').take(8) {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let (name, value) = line.split_at(colon);
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name),
            HeaderValue::from_bytes(&value[1..]),
        ) {
            headers.append(name, value);
        }
    }
    for name in ["retry-after", "x-ratelimit-reset", "x-ratelimit-remaining"] {
        if let Ok(value) = HeaderValue::from_bytes(data) {
            let mut single = HeaderMap::new();
            single.insert(name, value);
            let delay = server_delay(&single);
            let _ = exhausted_until(&single, delay);
        }
    }
    let delay = server_delay(&headers);
    let _ = exhausted_until(&headers, delay);
});
