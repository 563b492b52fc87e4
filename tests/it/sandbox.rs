//! The sandbox over real HTTP.
