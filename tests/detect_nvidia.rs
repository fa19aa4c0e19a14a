//! End-to-end detection tests for nvidia (placeholder).
