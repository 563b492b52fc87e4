//! The contract's Limits table and the enums of its generation (`api-facts.md`), shared by the
//! config checks, the sandbox's validation and the planner so that all three agree.

/// An inclusive numeric range with the field it applies to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Range {
    /// The wire name of the field.
    pub field: &'static str,
    /// Smallest allowed value.
    pub min: f64,
    /// Largest allowed value.
    pub max: f64,
    /// Whether the value must be a whole number.
    pub integer: bool,
}

impl Range {
    /// Whether `value` lies in the range (and is whole, where it must be).
    pub(crate) fn contains(&self, value: f64) -> bool {
        value >= self.min && value <= self.max && (!self.integer || value.fract() == 0.0)
    }

    /// "an integer from 1 to 10", for messages.
    pub(crate) fn describe(&self) -> String {
        let kind = if self.integer {
            "an integer"
        } else {
            "a number"
        };
        format!("{kind} from {} to {}", self.min, self.max)
    }
}

/// Pipe scaling `replicas` (kafka pipes).
pub(crate) const PIPE_REPLICAS: Range = Range {
    field: "replicas",
    min: 1.0,
    max: 10.0,
    integer: true,
};
/// Pipe scaling `concurrency` (object-storage pipes).
pub(crate) const PIPE_CONCURRENCY: Range = Range {
    field: "concurrency",
    min: 0.0,
    max: 34.0,
    integer: true,
};
/// Pipe scaling `replicaCpuMillicores` (streaming pipes).
pub(crate) const PIPE_CPU_MILLICORES: Range = Range {
    field: "replicaCpuMillicores",
    min: 125.0,
    max: 2000.0,
    integer: true,
};
/// Pipe scaling `replicaMemoryGb` (streaming pipes).
pub(crate) const PIPE_MEMORY_GB: Range = Range {
    field: "replicaMemoryGb",
    min: 0.5,
    max: 8.0,
    integer: false,
};

/// The integer pipe settings (`PUT .../pipes/{id}/settings`) and their ranges, from the cloud
/// document's `ClickPipeSettings`.
pub(crate) const PIPE_SETTINGS: [Range; 10] = [
    setting("streaming_max_insert_wait_ms", 500.0, 60_000.0),
    setting("object_storage_concurrency", 1.0, 35.0),
    setting("object_storage_polling_interval_ms", 100.0, 3_600_000.0),
    setting(
        "object_storage_max_insert_bytes",
        10_485_760.0,
        53_687_091_200.0,
    ),
    setting("object_storage_max_file_count", 1.0, 10_000.0),
    setting("db_max_threads", 0.0, 64.0),
    setting("db_max_insert_threads", 0.0, 16.0),
    setting("db_min_insert_block_size_bytes", 0.0, 10_737_418_240.0),
    setting("db_max_download_threads", 0.0, 32.0),
    setting("db_parallel_distributed_insert_select", 0.0, 2.0),
];

/// The boolean pipe settings of the same document.
pub(crate) const PIPE_BOOLEAN_SETTINGS: [&str; 2] = [
    "object_storage_use_cluster_function",
    "db_parallel_view_processing",
];

const fn setting(field: &'static str, min: f64, max: f64) -> Range {
    Range {
        field,
        min,
        max,
        integer: true,
    }
}

/// The shared compute of a service's database pipes before anyone sets it (`GET
/// .../pipesCdcScaling` of a service that never patched it): 2 cores, 8 GB, the document's
/// example and the size ClickHouse's scaling guide calls the default. `export` leaves it out.
pub(crate) const CDC_DEFAULT_CPU_MILLICORES: i64 = 2000;
/// The default shared memory, with [`CDC_DEFAULT_CPU_MILLICORES`].
pub(crate) const CDC_DEFAULT_MEMORY_GB: f64 = 8.0;

/// Shared CPU of a service's database pipes (`.../pipesCdcScaling`).
pub(crate) const CDC_CPU_MILLICORES: Range = Range {
    field: "replicaCpuMillicores",
    min: 1000.0,
    max: 32000.0,
    integer: true,
};
/// Shared memory of a service's database pipes: 4 GB for each CPU core.
pub(crate) const CDC_MEMORY_GB: Range = Range {
    field: "replicaMemoryGb",
    min: 4.0,
    max: 128.0,
    integer: false,
};
/// Database-pipe CPU comes in whole cores (the document's `multipleOf`).
pub(crate) const CDC_CPU_STEP_MILLICORES: f64 = 1000.0;
/// GB of memory per CPU core of database-pipe compute.
pub(crate) const CDC_MEMORY_PER_CORE_GB: f64 = 4.0;

/// Service scaling memory bounds (`minTotalMemoryGb`, `maxTotalMemoryGb`), both deprecated.
pub(crate) const SERVICE_MEMORY_MIN_GB: f64 = 24.0;
/// Upper bound of service memory for paid services.
pub(crate) const SERVICE_MEMORY_MAX_GB: f64 = 1068.0;
/// Upper bound of `maxTotalMemoryGb` for non-paid services.
pub(crate) const SERVICE_MEMORY_MAX_UNPAID_GB: f64 = 360.0;
/// Service memory values are multiples of this.
pub(crate) const SERVICE_MEMORY_STEP_GB: f64 = 12.0;
/// Per-replica memory (`minReplicaMemoryGb`, `maxReplicaMemoryGb` of `replicaScaling`): from 8.
pub(crate) const SERVICE_REPLICA_MEMORY_MIN_GB: f64 = 8.0;
/// Per-replica memory of a paid service: at most 356.
pub(crate) const SERVICE_REPLICA_MEMORY_MAX_GB: f64 = 356.0;
/// Per-replica memory of a non-paid service: at most 120.
pub(crate) const SERVICE_REPLICA_MEMORY_MAX_UNPAID_GB: f64 = 120.0;
/// Per-replica memory values are multiples of this.
pub(crate) const SERVICE_REPLICA_MEMORY_STEP_GB: f64 = 4.0;
/// `minReplicas` / `maxReplicas` of horizontal autoscaling.
pub(crate) const SERVICE_REPLICA_BAND: [Range; 2] = [
    Range {
        field: "minReplicas",
        min: 1.0,
        max: 20.0,
        integer: true,
    },
    Range {
        field: "maxReplicas",
        min: 1.0,
        max: 20.0,
        integer: true,
    },
];
/// Service scaling `numReplicas`.
pub(crate) const SERVICE_REPLICAS: Range = Range {
    field: "numReplicas",
    min: 1.0,
    max: 20.0,
    integer: true,
};
/// `numReplicas` minimum for the first service in a warehouse.
pub(crate) const SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE: f64 = 2.0;
/// Minimum `idleTimeoutMinutes`.
pub(crate) const SERVICE_IDLE_TIMEOUT_MIN: f64 = 5.0;

/// Chart series request: number of series.
pub(crate) const CHART_SERIES_MIN: usize = 1;
/// Chart series request: maximum number of series per request.
pub(crate) const CHART_SERIES_MAX: usize = 5;
/// Granularities of `POST /api/v2/charts/series`.
pub(crate) const GRANULARITIES: &[&str] = &[
    "30s", "1m", "5m", "10m", "15m", "30m", "1h", "2h", "6h", "12h", "1d", "2d", "7d", "30d",
    "auto",
];
/// `seriesReturnType` values.
pub(crate) const SERIES_RETURN_TYPES: &[&str] = &["ratio", "column"];

/// Series `type`.
pub(crate) const SERIES_TYPES: &[&str] =
    &["time", "table", "number", "histogram", "search", "markdown"];
/// Series `dataSource`.
pub(crate) const DATA_SOURCES: &[&str] = &["events", "metrics"];
/// Series `aggFn`.
pub(crate) const AGG_FNS: &[&str] = &[
    "avg",
    "count",
    "count_distinct",
    "last_value",
    "max",
    "min",
    "quantile",
    "sum",
];
/// Series `whereLanguage`.
pub(crate) const WHERE_LANGUAGES: &[&str] = &["lucene", "sql"];
/// Series `metricDataType`.
pub(crate) const METRIC_DATA_TYPES: &[&str] = &["sum", "gauge", "histogram"];
/// Alert `thresholdType`.
pub(crate) const THRESHOLD_TYPES: &[&str] = &[
    "above",
    "below",
    "above_exclusive",
    "below_or_equal",
    "equal",
    "not_equal",
    "between",
    "not_between",
];
/// The threshold types of the contract's generation (the others are today's only).
pub(crate) const CONTRACT_THRESHOLD_TYPES: &[&str] = &["above", "below"];
/// The threshold types with an upper bound, `thresholdMax` (today's generation only).
pub(crate) const BOUNDED_THRESHOLD_TYPES: &[&str] = &["between", "not_between"];
/// Alert `source`.
pub(crate) const ALERT_SOURCES: &[&str] = &["tile", "saved_search"];
/// Alert `interval`.
pub(crate) const ALERT_INTERVALS: &[&str] = &["1m", "5m", "15m", "30m", "1h", "6h", "12h", "1d"];
/// Minutes of one of [`ALERT_INTERVALS`] (`5m`, `1h`, `1d`).
pub(crate) fn alert_interval_minutes(interval: &str) -> Option<i64> {
    let (number, unit) = interval.split_at(interval.len().checked_sub(1)?);
    let n: i64 = number.parse().ok()?;
    match unit {
        "m" => Some(n),
        "h" => n.checked_mul(60),
        "d" => n.checked_mul(24 * 60),
        _ => None,
    }
}
/// Alert channel `type`.
pub(crate) const CHANNEL_TYPES: &[&str] = &["webhook", "email"];

/// Most tiles on one dashboard.
pub(crate) const DASHBOARD_MAX_TILES: usize = 500;
/// Longest dashboard name.
pub(crate) const DASHBOARD_NAME_MAX: usize = 1024;
/// Most tags on one dashboard.
pub(crate) const DASHBOARD_MAX_TAGS: usize = 50;
/// Longest tag.
pub(crate) const TAG_MAX: usize = 32;
/// Tile grid `x`: 0 to 23.
pub(crate) const TILE_X: Range = Range {
    field: "x",
    min: 0.0,
    max: 23.0,
    integer: true,
};
/// Tile grid `w`: 1 to 24.
pub(crate) const TILE_W: Range = Range {
    field: "w",
    min: 1.0,
    max: 24.0,
    integer: true,
};
/// Longest alert name.
pub(crate) const ALERT_NAME_MAX: usize = 512;
/// Longest alert message.
pub(crate) const ALERT_MESSAGE_MAX: usize = 4096;

/// Cloud API rate limit: requests per window per key.
pub(crate) const CLOUD_RATE_REQUESTS: u32 = 10;
/// Cloud API rate limit window, in seconds.
pub(crate) const CLOUD_RATE_WINDOW_SECS: u64 = 10;
/// Observability API rate limit: requests per window per key.
pub(crate) const OBSERVABILITY_RATE_REQUESTS: u32 = 100;
/// Observability API rate limit window, in seconds.
pub(crate) const OBSERVABILITY_RATE_WINDOW_SECS: u64 = 60;

/// Whether `id` is an ObjectId as today's servers check one (mongoose's `isValid` on their
/// ids): 24 hexadecimal digits. The contract's generation takes any string.
pub(crate) fn is_object_id(id: &str) -> bool {
    id.len() == 24 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The value column of the metric tables (`otel_metrics_gauge`, `_sum`, `_histogram`), which a
/// metric series without `field` aggregates. The server refuses a non-count select item without
/// `valueExpression` (`utils/zod.ts`), and HyperDX's chart editor writes this one whenever a
/// metric name is picked (`ChartSeriesEditor.tsx`), so converge writes it the same way. The server draws a metric select item from its metric
/// table's own column whatever it holds (`renderChartConfig`'s `LastValue`, `Rate`), so a live
/// item with an empty one is compared as this.
pub(crate) const METRIC_VALUE_COLUMN: &str = "Value";

/// The days ahead of now the server takes a `scheduleStartAt` (`scheduleStartAtSchema`: 365
/// days of milliseconds).
pub(crate) const SCHEDULE_START_AHEAD_DAYS: i64 = 365;
/// The days back from now the server takes a `scheduleStartAt` (ten of those years).
pub(crate) const SCHEDULE_START_BACK_DAYS: i64 = 3650;

/// The server's refusal of a `scheduleStartAt` (a date-time [`utc_date_time`] takes) outside the
/// window it allows around `now`, in its words; `None` inside it.
pub(crate) fn schedule_start_outside(start: &str, now: jiff::Timestamp) -> Option<&'static str> {
    const DAY_MS: i64 = 24 * 60 * 60 * 1000;
    let at = start.parse::<jiff::Timestamp>().ok()?.as_millisecond();
    let now = now.as_millisecond();
    if at > now + SCHEDULE_START_AHEAD_DAYS * DAY_MS {
        Some("scheduleStartAt must be within 1 year from now")
    } else if at < now - SCHEDULE_START_BACK_DAYS * DAY_MS {
        Some("scheduleStartAt must be within 10 years in the past")
    } else {
        None
    }
}

/// Whether `text` is a date-time the server reads (zod's `datetime()`: UTC written with `Z`,
/// seconds, any fraction of them, no other offset).
pub(crate) fn utc_date_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let shape = |at: usize, digits: usize| {
        bytes
            .get(at..at + digits)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let head = bytes.len() >= 20
        && shape(0, 4)
        && bytes[4] == b'-'
        && shape(5, 2)
        && bytes[7] == b'-'
        && shape(8, 2)
        && bytes[10] == b'T'
        && shape(11, 2)
        && bytes[13] == b':'
        && shape(14, 2)
        && bytes[16] == b':'
        && shape(17, 2);
    let tail = match &bytes[19.min(bytes.len())..] {
        [b'Z'] => true,
        [b'.', rest @ .., b'Z'] => !rest.is_empty() && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    head && tail && text.parse::<jiff::Timestamp>().is_ok()
}

/// A date-time as the server stores and answers it (JavaScript's `toISOString`: UTC,
/// milliseconds, `Z`): `2026-02-08T10:00:00Z` reads back `2026-02-08T10:00:00.000Z`. `None`
/// when it is not a date-time.
pub(crate) fn stored_date_time(text: &str) -> Option<String> {
    let at = text.parse::<jiff::Timestamp>().ok()?;
    Some(at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
}

/// The most tags a service holds (`Service.tags.maxItems`).
pub const SERVICE_TAGS_MAX: usize = 50;

/// Whether `text` is an IP address or a CIDR (`address/prefix`, the prefix within the
/// address's bits).
pub fn is_ip_source(text: &str) -> bool {
    let (address, prefix) = match text.split_once('/') {
        Some((address, prefix)) => (address, Some(prefix)),
        None => (text, None),
    };
    let Ok(address) = address.parse::<std::net::IpAddr>() else {
        return false;
    };
    let bits = if address.is_ipv4() { 32 } else { 128 };
    prefix.is_none_or(|p| {
        p.chars().all(|c| c.is_ascii_digit()) && p.parse::<u8>().is_ok_and(|p| p <= bits)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_start_is_stored_with_milliseconds() {
        for (written, stored) in [
            ("2026-02-08T10:00:00Z", "2026-02-08T10:00:00.000Z"),
            ("2026-02-08T10:00:00.000Z", "2026-02-08T10:00:00.000Z"),
            ("2026-02-08T10:00:00.5Z", "2026-02-08T10:00:00.500Z"),
        ] {
            assert_eq!(super::stored_date_time(written).as_deref(), Some(stored));
        }
        assert_eq!(super::stored_date_time("soon"), None);
    }

    #[test]
    fn a_start_is_read_as_the_server_reads_it() {
        for good in [
            "2026-02-08T10:00:00Z",
            "2026-02-08T10:00:00.000Z",
            "2026-02-08T10:00:00.5Z",
        ] {
            assert!(super::utc_date_time(good), "{good}");
        }
        for bad in [
            "2026-02-08T10:00:00+01:00",
            "2026-02-08T10:00Z",
            "2026-02-08 10:00:00Z",
            "2026-02-08T10:00:00.Z",
            "2026-13-08T10:00:00Z",
            "2026-02-08",
        ] {
            assert!(!super::utc_date_time(bad), "{bad}");
        }
    }

    #[test]
    fn sources_are_addresses_or_cidrs() {
        for good in [
            "10.0.0.0/8",
            "203.0.113.7",
            "0.0.0.0/0",
            "2001:db8::/32",
            "::1",
        ] {
            assert!(super::is_ip_source(good), "{good}");
        }
        for bad in [
            "10.0.0.0/33",
            "example.com",
            "10.0.0/8",
            "1.2.3.4/",
            "::/129",
            "",
        ] {
            assert!(!super::is_ip_source(bad), "{bad}");
        }
    }
}
