//! `converge plan` through the real binary.
