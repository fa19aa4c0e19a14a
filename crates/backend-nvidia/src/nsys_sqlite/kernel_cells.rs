//! One row of the kernel table as the activity reader takes it: read cell by cell (any row
//! source; an error names the cell) or, from a row whose cells are all integers, checked at
//! once (the pages' hot loop).

use super::cells::{At, Cells};
use prof_core::Result;

/// The cells of one row of the kernel table's query, checked and typed.
pub(super) struct KernelCells {
    pub(super) start: u64,
    pub(super) dur: u64,
    /// `demangledName` and `shortName`.
    pub(super) ids: [Option<i64>; 2],
    pub(super) device: u32,
    pub(super) stream: u64,
    pub(super) correlation: Option<u64>,
    pub(super) grid: [u32; 3],
    pub(super) block: [u32; 3],
    pub(super) registers: u32,
    /// Static and dynamic shared memory.
    pub(super) shared: u64,
}

impl KernelCells {
    /// The row read cell by cell: an error names the first cell that is not what its column
    /// holds.
    pub(super) fn read<C: Cells>(row: &C, at: &At) -> Result<Self> {
        let (start, dur) = at.times(row)?;
        let ids: [Option<i64>; 2] = [at.opt(row, 5, "demangledName")?, at.opt(row, 6, "shortName")?];
        let (device, stream) = (at.req(row, 2, "deviceId")?, at.req(row, 3, "streamId")?);
        let correlation = at.opt(row, 4, "correlationId")?;
        let dims = |first: usize, names: [&str; 3]| -> Result<[u32; 3]> {
            Ok([at.req(row, first, names[0])?, at.req(row, first + 1, names[1])?, at.req(row, first + 2, names[2])?])
        };
        let grid = dims(7, ["gridX", "gridY", "gridZ"])?;
        let block = dims(10, ["blockX", "blockY", "blockZ"])?;
        let registers = at.req(row, 13, "registersPerThread")?;
        let shared =
            at.req::<u64>(row, 14, "staticSharedMemory")?.saturating_add(at.req(row, 15, "dynamicSharedMemory")?);
        Ok(Self { start, dur, ids, device, stream, correlation, grid, block, registers, shared })
    }

    /// The row from its 16 integer cells, as [`KernelCells::read`] gives it; `None` when a
    /// cell is out of its column's range (that reading then names it).
    #[inline]
    pub(super) fn of_ints(cells: [i64; 16]) -> Option<Self> {
        let [start, end, device, stream, correlation, demangled, short, gx, gy, gz, bx, by, bz, registers, fixed, dynamic] =
            cells;
        // Every cell but the name ids is a u64; these are also u32s.
        let unsigned = [start, end, device, stream, correlation, gx, gy, gz, bx, by, bz, registers, fixed, dynamic];
        let narrow = [device, gx, gy, gz, bx, by, bz, registers];
        let fits = unsigned.iter().fold(0, |all, &cell| all | cell) >= 0
            && narrow.iter().fold(0, |all, &cell| all | cell) <= i64::from(u32::MAX)
            && end >= start;
        fits.then(|| Self {
            start: start as u64,
            dur: (end - start) as u64,
            ids: [Some(demangled), Some(short)],
            device: device as u32,
            stream: stream as u64,
            correlation: Some(correlation as u64),
            grid: [gx as u32, gy as u32, gz as u32],
            block: [bx as u32, by as u32, bz as u32],
            registers: registers as u32,
            shared: (fixed as u64).saturating_add(dynamic as u64),
        })
    }
}
