//! The Ascend op checks ([`crate::ascend_analysis`]) summed row by row: the columns they
//! read, the groups they sum, and the reading of a pipe-ratio cell.

use crate::ascend_report::{AscendReport, BoundReport, OpBound, StateShare, CUBE_UTILIZATION, OP_STATE, TOP_OPS};
use crate::csv_table::{Header, Row};
use crate::error::AscendError;
use crate::op_columns as columns;
use crate::pipe_bound::{sides, Bound, PipeMeans, WeightedMean, PIPES};
use prof_core::{Interner, NameId};
use prof_timeline::intern::FxHashMap;
use std::collections::HashMap;

/// The tasks of one op type on one task type, summed.
#[derive(Default)]
pub(crate) struct Group {
    pub(crate) calls: u64,
    pub(crate) total_ns: u64,
    pub(crate) means: PipeMeans,
    /// Duration-weighted `cube_utilization(%)`.
    pub(crate) cube_util: WeightedMean,
}

/// Where the checks' columns are in a table.
struct CheckColumns {
    name: usize,
    duration: usize,
    op_type: Option<usize>,
    core: Option<usize>,
    state: Option<usize>,
    cube_util: Option<usize>,
    pipes: Vec<PipeColumns>,
}

/// The op checks, summed row by row: by one reader of the whole table, or by one per part
/// of a large table ([`OpChecks::absorb`] joins them), in the same pass that loads its ops.
/// Ops are grouped by an id of their op type (else name) that the caller interns: the loader
/// passes the timeline's, so a row is not looked up twice.
pub(crate) struct OpChecks {
    columns: CheckColumns,
    // Task types and states are few: interned, so a row allocates nothing.
    strings: Interner,
    groups: Vec<((NameId, NameId), Group)>,
    /// Where each (op, task type) group is in `groups`.
    by_ids: FxHashMap<(NameId, NameId), usize>,
    /// Per op id, the task type of its last row and that row's group (the rows of an op
    /// mostly repeat the task type): found without a look-up.
    last_of_op: Vec<Option<(NameId, usize)>>,
    by_state: FxHashMap<NameId, (u64, u64, FxHashMap<NameId, ()>)>,
    /// The ids of the last row's task type and state (rows mostly repeat them).
    guesses: [Option<NameId>; 2],
}

impl OpChecks {
    /// Checks of a table with `header`: its name and duration columns are required.
    pub(crate) fn new(header: &Header) -> Result<Self, AscendError> {
        let columns = CheckColumns {
            name: header.require(columns::NAME)?,
            duration: header.require(columns::DURATION)?,
            op_type: header.column(columns::OP_TYPE),
            core: header.column(columns::CORE),
            state: header.column(OP_STATE),
            cube_util: header.column(CUBE_UTILIZATION),
            pipes: PIPES.iter().map(|pipe| PipeColumns::of(header, pipe)).collect(),
        };
        Ok(Self {
            columns,
            strings: Interner::new(),
            groups: Vec::new(),
            by_ids: FxHashMap::default(),
            last_of_op: Vec::new(),
            by_state: FxHashMap::default(),
            guesses: [None; 2],
        })
    }

    /// The columns the checks read.
    pub(crate) fn columns(&self) -> Vec<usize> {
        let c = &self.columns;
        let pipes = c.pipes.iter().flat_map(PipeColumns::indices);
        [c.op_type, c.core, c.state, c.cube_util]
            .into_iter()
            .flatten()
            .chain(pipes)
            .chain([c.name, c.duration])
            .collect()
    }

    /// The text a row is grouped by: its op type, else its name (an error when it has neither).
    pub(crate) fn op_of<'a>(&self, row: &Row<'a>) -> Result<&'a str, AscendError> {
        match row.get(self.columns.op_type) {
            Some(t) => Ok(t),
            None => row.text(self.columns.name),
        }
    }

    /// A row's duration, ns.
    pub(crate) fn duration(&self, row: &Row<'_>) -> Result<u64, AscendError> {
        let col = self.columns.duration;
        row.micros_ns(Some(col))?.ok_or_else(|| row.error(col, "is empty or N/A"))
    }

    /// Adds one row of duration `dur` (ns) whose [`OpChecks::op_of`] has the id `op`; an
    /// error names its line and column.
    pub(crate) fn add(&mut self, row: &Row<'_>, dur: u64, op: NameId) -> Result<(), AscendError> {
        let c = &self.columns;
        let [task_guess, state_guess] = &mut self.guesses;
        let task = self.strings.intern_guess(row.get(c.core).unwrap_or(""), task_guess);
        let mut ratios = [None; PIPES.len()];
        for (slot, cols) in c.pipes.iter().enumerate() {
            ratios[slot] = cols.read(row)?;
        }
        let cube_util = number(row, c.cube_util)?;
        if c.state.is_some() {
            let state = self.strings.intern_guess(row.get(c.state).unwrap_or("N/A"), state_guess);
            let entry = self.by_state.entry(state).or_default();
            entry.0 += 1;
            entry.1 += dur;
            entry.2.insert(op, ());
        }
        let group = self.group(op, task);
        group.calls += 1;
        group.total_ns += dur;
        group.means.add(&ratios, dur);
        if let Some(value) = cube_util {
            group.cube_util.add(value, dur);
        }
        Ok(())
    }

    /// The group of op `op` on task type `task`.
    #[inline]
    fn group(&mut self, op: NameId, task: NameId) -> &mut Group {
        let slot = op.0 as usize;
        if slot >= self.last_of_op.len() {
            self.last_of_op.resize(slot + 1, None);
        }
        let at = match self.last_of_op[slot] {
            Some((last_task, at)) if last_task == task => at,
            _ => {
                let at = *self.by_ids.entry((op, task)).or_insert_with(|| {
                    self.groups.push(((op, task), Group::default()));
                    self.groups.len() - 1
                });
                self.last_of_op[slot] = Some((task, at));
                at
            }
        };
        &mut self.groups[at].1
    }

    /// Adds what `later` summed over a later part of the same table; `op_ids` maps the op
    /// ids it was given to the ones this was given.
    pub(crate) fn absorb(&mut self, later: OpChecks, op_ids: &[NameId]) {
        let text = |id: NameId| later.strings.resolve(id);
        let op_id = |id: NameId| op_ids.get(id.0 as usize).copied().unwrap_or(id);
        for ((op, task), group) in &later.groups {
            let task = self.strings.intern(text(*task));
            let mine = self.group(op_id(*op), task);
            mine.calls += group.calls;
            mine.total_ns += group.total_ns;
            mine.means.absorb(&group.means);
            mine.cube_util.absorb(&group.cube_util);
        }
        for (state, (tasks, ns, types)) in &later.by_state {
            let state = self.strings.intern(text(*state));
            let types: Vec<NameId> = types.keys().map(|t| op_id(*t)).collect();
            let mine = self.by_state.entry(state).or_default();
            mine.0 += tasks;
            mine.1 += ns;
            mine.2.extend(types.into_iter().map(|t| (t, ())));
        }
    }

    /// The report of the rows added, from the table with `header`; `ops` resolves the op ids.
    pub(crate) fn report(self, header: &Header, ops: &Interner) -> AscendReport {
        let path = header.path();
        let text = |id: NameId| self.strings.resolve(id).to_owned();
        let groups: HashMap<(String, String), Group> = self
            .groups
            .into_iter()
            .map(|((op, task), group)| ((ops.resolve(op).to_owned(), text(task)), group))
            .collect();
        let states: HashMap<String, (u64, u64, usize)> = self
            .by_state
            .into_iter()
            .map(|(state, (tasks, ns, types))| (text(state), (tasks, ns, types.len())))
            .collect();
        let pipe_cols = &self.columns.pipes;
        let mut notes = Vec::new();
        let pipe_columns: Vec<String> = pipe_cols.iter().flat_map(|c| c.names(header)).collect();
        if pipe_columns.is_empty() {
            notes.push(format!(
                "{} has no pipe ratio columns (aic_mac_ratio, aiv_vec_ratio, aic_mte2_ratio, …): the compute-bound check \
                 needs a capture with --aic-metrics=PipeUtilization",
                path.display()
            ));
        } else if !pipe_cols
            .iter()
            .zip(PIPES)
            .any(|(c, p)| c.present() && p.kind == crate::pipe_bound::PipeKind::Memory)
        {
            notes.push(
                "no memory pipe columns (aic_mte2_ratio, aiv_mte2_ratio, …) in this export (ArithmeticUtilization metrics): \
                 ops below 70 % compute cannot be called memory-bound; capture with --aic-metrics=PipeUtilization"
                    .to_owned(),
            );
        }
        if self.columns.state.is_none() {
            notes.push(format!(
                "{} has no `OP State` column: static vs dynamic ops are not known (msprof CANN 8 op_summary has it)",
                path.display()
            ));
        }
        AscendReport {
            op_table: path.to_owned(),
            bound: bound_report(groups, pipe_columns),
            op_state: self.columns.state.map(|_| state_shares(states)),
            notes,
        }
    }
}

#[inline]
fn number(row: &Row<'_>, col: Option<usize>) -> Result<Option<f64>, AscendError> {
    // Most ratios of a row, seen before the text is cleaned.
    if col.and_then(|c| row.raw(c)) == Some(b"0") {
        return Ok(Some(0.0));
    }
    match (col, row.get(col)) {
        (Some(col), Some(text)) => plain_decimal(text)
            .or_else(|| text.parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .map(Some)
            .ok_or_else(|| row.error(col, &format!("`{text}` is not a number"))),
        _ => Ok(None),
    }
}

/// A plain decimal (`0`, `0.0822`, `87.4`: digits, at most one point, at most 15 digits) read
/// in one pass: the digits as an integer, exact in an f64, divided by an exact power of ten,
/// which rounds once, so the value is the one `str::parse` gives. `None` for anything else
/// (signs, exponents, longer numbers), which `str::parse` then reads.
pub(crate) fn plain_decimal(text: &str) -> Option<f64> {
    const TENS: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let (mut digits, mut value, mut point) = (0usize, 0u64, None);
    for (at, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                value = value * 10 + u64::from(b - b'0');
                digits += 1;
            }
            b'.' if point.is_none() => point = Some(at),
            _ => return None,
        }
    }
    if digits == 0 || digits > 15 {
        return None;
    }
    match point.map_or(0, |at| bytes.len() - at - 1) {
        // Exact: no division (most ratios of a row are `0`).
        0 => Some(value as f64),
        fraction => Some(value as f64 / TENS[fraction]),
    }
}

/// Where one pipe's ratio is in a header: one column, or several to sum.
enum PipeColumns {
    One(usize),
    Sum(Vec<usize>),
    Absent,
}

impl PipeColumns {
    fn of(header: &Header, pipe: &crate::pipe_bound::Pipe) -> Self {
        if let Some(col) = header.column(pipe.columns) {
            return PipeColumns::One(col);
        }
        let summed: Vec<usize> = pipe.summed.iter().filter_map(|name| header.column(&[*name])).collect();
        if summed.is_empty() {
            PipeColumns::Absent
        } else {
            PipeColumns::Sum(summed)
        }
    }

    fn present(&self) -> bool {
        !matches!(self, PipeColumns::Absent)
    }

    fn indices(&self) -> Vec<usize> {
        match self {
            PipeColumns::One(col) => vec![*col],
            PipeColumns::Sum(cols) => cols.clone(),
            PipeColumns::Absent => Vec::new(),
        }
    }

    fn names(&self, header: &Header) -> Vec<String> {
        let name = |c: &usize| header.names()[*c].clone();
        match self {
            PipeColumns::One(col) => vec![name(col)],
            PipeColumns::Sum(cols) => cols.iter().map(name).collect(),
            PipeColumns::Absent => Vec::new(),
        }
    }

    fn read(&self, row: &Row<'_>) -> Result<Option<f64>, AscendError> {
        match self {
            PipeColumns::One(col) => number(row, Some(*col)),
            PipeColumns::Sum(cols) => {
                let mut sum = None;
                for col in cols {
                    if let Some(v) = number(row, Some(*col))? {
                        *sum.get_or_insert(0.0) += v;
                    }
                }
                Ok(sum)
            }
            PipeColumns::Absent => Ok(None),
        }
    }
}

pub(crate) fn bound_report(groups: HashMap<(String, String), Group>, pipe_columns: Vec<String>) -> BoundReport {
    let total_ns: u64 = groups.values().map(|g| g.total_ns).sum();
    let mut by_verdict: HashMap<Bound, u64> = HashMap::new();
    let mut rows: Vec<OpBound> = groups
        .into_iter()
        .map(|((op, task_type), group)| {
            let (verdict, compute_pct, limiter) = group.means.verdict(sides(&task_type));
            *by_verdict.entry(verdict).or_default() += group.total_ns;
            OpBound {
                share_pct: if total_ns == 0 { 0.0 } else { group.total_ns as f64 * 100.0 / total_ns as f64 },
                op,
                task_type,
                calls: group.calls,
                total_ns: group.total_ns,
                compute_pct,
                limiter,
                cube_utilization_pct: group.cube_util.mean(),
                verdict,
            }
        })
        .collect();
    rows.retain(|row| !sides(&row.task_type).is_empty());
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.op.cmp(&b.op)));
    rows.truncate(TOP_OPS);
    let mut by_verdict: Vec<(Bound, u64)> = by_verdict.into_iter().collect();
    by_verdict.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.describe().cmp(b.0.describe())));
    BoundReport { pipe_columns, total_ns, by_verdict, top: rows }
}

pub(crate) fn state_shares(states: HashMap<String, (u64, u64, usize)>) -> Vec<StateShare> {
    let mut shares: Vec<StateShare> = states
        .into_iter()
        .map(|(state, (tasks, total_ns, op_types))| StateShare { state, tasks, total_ns, op_types })
        .collect();
    shares.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.state.cmp(&b.state)));
    shares
}
