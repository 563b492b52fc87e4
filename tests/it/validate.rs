//! `converge validate` through the real binary.
