//! Unit tests of sending a pipe's write.

use super::*;
use crate::api::wire::PipeScaling;

#[test]
fn a_pipe_with_no_scaling_yet_does_not_show_a_patch() {
    let patch = PipeScaling {
        replicas: Some(4),
        replica_memory_gb: Some(2.0),
        ..PipeScaling::default()
    };
    let mut pipe = Pipe::default();
    assert!(!shows(&pipe, &patch));
    pipe.scaling = Some(PipeScaling {
        replicas: Some(4),
        replica_memory_gb: Some(2.0),
        concurrency: Some(1),
        ..PipeScaling::default()
    });
    assert!(shows(&pipe, &patch));
    pipe.scaling = Some(PipeScaling {
        replicas: Some(2),
        ..PipeScaling::default()
    });
    assert!(!shows(&pipe, &patch));
}
