//! The local emulator of both APIs (axum): routes, store, limits, faults, series.
