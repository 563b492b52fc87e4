//! The planner: normalize, diff, order steps, saved plan files, renderers. No I/O here.
