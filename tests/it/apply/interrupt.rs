//! SIGINT in the middle of an apply.
