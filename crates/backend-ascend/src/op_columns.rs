//! Names of each column across producers, torch_npu first.

/// Op (kernel) name.
pub const NAME: &[&str] = &["Name", "Op Name", "kernel_name"];
/// Framework op type.
pub const OP_TYPE: &[&str] = &["Type", "OP Type"];
/// Core / task type.
pub const CORE: &[&str] = &["Accelerator Core", "Task Type", "kernel_type"];
/// Start, µs.
pub const START: &[&str] = &["Start Time(us)", "Task Start Time(us)", "task_start(us)"];
/// Duration, µs.
pub const DURATION: &[&str] = &["Duration(us)", "Task Duration(us)", "task_time(us)"];
/// Stream.
pub const STREAM: &[&str] = &["Stream ID", "stream_id"];
/// Device.
pub const DEVICE: &[&str] = &["Device_id"];
/// Blocks (cores) the op was spread over.
pub const BLOCK_DIM: &[&str] = &["Block Dim", "Block Num"];
/// Input shapes.
pub const INPUT_SHAPES: &[&str] = &["Input Shapes"];
/// Input element types.
pub const INPUT_TYPES: &[&str] = &["Input Data Types"];
