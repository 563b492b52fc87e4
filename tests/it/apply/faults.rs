//! Faults: with 429s, 500s, reset and lost connections, applying the demo config converges in
//! one run with no duplicate dashboard, alert or endpoint, for 20 fault seeds.
