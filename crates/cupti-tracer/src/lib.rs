//! placeholder: CUPTI injection tracer
