//! End-to-end detection tests for amd (placeholder).
