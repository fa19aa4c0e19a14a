//! End-to-end detection tests for ascend (placeholder).
