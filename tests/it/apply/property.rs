//! Convergence as a property.
