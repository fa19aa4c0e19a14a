//! The page of a multi-rank job (`prof analyze RANK_DIR --html`): per rank, where its wall time
//! went (compute / communication / other / idle, bars scaled to the slowest rank's wall, as
//! HolisticTraceAnalysis's temporal breakdown per rank), and the communication matrix as a
//! heat map (bytes from rank to rank, darker = more), then the text report.

use super::bars::{legend, PARTS};
use super::svg::Svg;
use super::{block, page};
use crate::render::human_ns;
use maud::{html, Markup};
use prof_core::analysis::ranks::RankSplit;
use prof_core::vendor_tables::Link;

const LABEL_W: f64 = 90.0;
const BAR_W: f64 = 900.0;
const ROW_H: f64 = 20.0;
/// Most ranks drawn as bars or matrix rows (a 1024-rank job keeps a readable page).
pub const MAX_RANKS: usize = 256;

/// The parts of a rank's wall time (no memory part: rank splits have none), in the colours of
/// the per-device bars.
fn parts() -> impl Iterator<Item = (&'static str, &'static str)> {
    PARTS.iter().filter(|&&(_, name, _)| name != "memory").map(|&(_, name, fill)| (name, fill))
}

/// Bars of each rank's wall-time split.
pub fn rank_bars(splits: &[(u32, RankSplit)]) -> Option<Markup> {
    let longest = splits.iter().map(|(_, s)| s.wall_ns).max().filter(|&w| w > 0)? as f64;
    let shown = &splits[..splits.len().min(MAX_RANKS)];
    let mut svg = Svg::new(LABEL_W + BAR_W + 120.0, shown.len() as f64 * ROW_H + 40.0);
    for (index, (rank, split)) in shown.iter().enumerate() {
        let y = 4.0 + index as f64 * ROW_H;
        svg.text(LABEL_W - 6.0, y + ROW_H * 0.7, "end", 12.0, &format!("rank {rank}"));
        let mut x = LABEL_W;
        let times = [split.compute_ns, split.communication_ns, split.other_ns, split.idle_ns];
        for ((name, fill), ns) in parts().zip(times) {
            let w = BAR_W * ns as f64 / longest;
            let title = format!("rank {rank} {name}: {} of {}", human_ns(ns as f64), human_ns(split.wall_ns as f64));
            svg.rect(x, y + 3.0, w.max(0.0), ROW_H - 6.0, fill, Some(&title));
            x += w;
        }
        svg.text(x + 6.0, y + ROW_H * 0.7, "start", 11.0, &human_ns(split.wall_ns as f64));
    }
    legend(&mut svg, LABEL_W, 4.0 + shown.len() as f64 * ROW_H + 20.0, 150.0, parts());
    Some(svg.finish("wall time of each rank: compute, communication, other, idle"))
}

/// The communication matrix as a heat map of bytes sent from rank to rank.
pub fn comm_heat_map(links: &[&Link]) -> Option<Markup> {
    let ranks = links.iter().flat_map(|l| [l.src, l.dst]).max()? as usize + 1;
    let ranks = ranks.min(MAX_RANKS);
    let mut bytes = vec![0u64; ranks * ranks];
    for link in links.iter().filter(|l| (l.src as usize) < ranks && (l.dst as usize) < ranks) {
        bytes[link.src as usize * ranks + link.dst as usize] += link.bytes;
    }
    let most = bytes.iter().copied().max().filter(|&b| b > 0)? as f64;
    let cell = (600.0 / ranks as f64).clamp(4.0, 28.0);
    let size = LABEL_W + cell * ranks as f64 + 20.0;
    let mut svg = Svg::new(size, size);
    for src in 0..ranks {
        if ranks <= 32 {
            svg.text(LABEL_W - 6.0, LABEL_W + (src as f64 + 0.7) * cell, "end", 11.0, &format!("{src}"));
            svg.text(LABEL_W + (src as f64 + 0.5) * cell, LABEL_W - 6.0, "middle", 11.0, &format!("{src}"));
        }
        for dst in 0..ranks {
            let b = bytes[src * ranks + dst];
            if b == 0 {
                continue;
            }
            // Log scale: a link 1000× smaller still shows.
            let level = ((b as f64).ln() / most.ln().max(1.0)).clamp(0.05, 1.0);
            let shade = (235.0 - 200.0 * level) as u8;
            let fill = format!("#{shade:02x}{shade:02x}ff");
            let title = format!("rank {src} → rank {dst}: {:.1} MB", b as f64 / 1e6);
            svg.rect(
                LABEL_W + dst as f64 * cell,
                LABEL_W + src as f64 * cell,
                cell - 1.0,
                cell - 1.0,
                &fill,
                Some(&title),
            );
        }
    }
    svg.text(LABEL_W, 14.0, "start", 12.0, "to rank →  (rows: from rank)");
    Some(svg.finish("communication matrix: bytes from rank (row) to rank (column)"))
}

/// How late each rank started each step, as a heat map (darker = later than the earliest rank
/// at that step, scaled to the latest in the map).
pub fn step_heat_map(heat: &prof_core::rank_summary::StepHeat) -> Option<Markup> {
    let latest = heat.late_ns.iter().flatten().flatten().copied().max().filter(|&l| l > 0)? as f64;
    let (rows, columns) = (heat.ranks.len(), heat.steps.len());
    let cell = (640.0 / columns.max(1) as f64).clamp(6.0, 28.0);
    let mut svg = Svg::new(LABEL_W + cell * columns as f64 + 20.0, 30.0 + ROW_H * rows as f64);
    for (row, rank) in heat.ranks.iter().enumerate() {
        let y = 24.0 + row as f64 * ROW_H;
        svg.text(LABEL_W - 6.0, y + ROW_H * 0.7, "end", 11.0, &format!("rank {rank}"));
        for (column, step) in heat.steps.iter().enumerate() {
            let Some(late) = heat.late_ns[row][column] else { continue };
            let shade = (240.0 - 200.0 * (late as f64 / latest)) as u8;
            let fill = format!("#ff{shade:02x}{shade:02x}");
            let title = format!("rank {rank}, step {step}: started {} after the earliest rank", human_ns(late as f64));
            svg.rect(LABEL_W + column as f64 * cell, y + 1.0, cell - 1.0, ROW_H - 2.0, &fill, Some(&title));
        }
    }
    svg.text(LABEL_W, 14.0, "start", 12.0, &format!("steps → ({columns} of them, sampled evenly)"));
    Some(svg.finish("how late each rank started each step, against the earliest rank"))
}

/// The page of a merged job (`prof analyze DIR --html` over rank summaries): the ranks' splits,
/// the rank × step heat map, and the text report.
pub fn job_page(root: &str, job: &prof_core::rank_summary::JobReport, text: &str) -> String {
    let splits: Vec<(u32, RankSplit)> = job.rows.iter().map(|r| (r.rank, r.split)).collect();
    let body = html! {
        p.note { "job: " (root) " · " (job.ranks) " ranks (from rank summaries)" }
        (block("How late each rank started each step", step_heat_map(&job.heat)))
        (block("Where each rank's wall time went", rank_bars(&splits)))
        (block("Report", Some(html! { pre { (text) } })))
    };
    page(&format!("prof job: {root}"), body)
}

/// The whole page: bars, heat map, and the text report in a `<pre>` block.
pub fn ranks_page(root: &str, splits: &[(u32, RankSplit)], links: &[&Link], text: &str) -> String {
    let body = html! {
        p.note { "job: " (root) " · " (splits.len()) " ranks" }
        (block("Where each rank's wall time went", rank_bars(splits)))
        (block("Communication matrix (bytes, log scale)", comm_heat_map(links)))
        (block("Report", Some(html! { pre { (text) } })))
    };
    page(&format!("prof ranks: {root}"), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_slowest_rank_and_the_matrix_shades_links() {
        let split = |wall, compute, comm| RankSplit {
            wall_ns: wall,
            compute_ns: compute,
            communication_ns: comm,
            other_ns: 0,
            idle_ns: wall - compute - comm,
        };
        let svg = rank_bars(&[(0, split(1_000, 600, 200)), (1, split(2_000, 600, 200))]).unwrap().into_string();
        // Rank 0's compute is 600 of the slowest rank's 2000 ns: 270 of the 900 px.
        assert!(svg.contains("width=\"270.0\""), "{svg}");
        assert!(svg.contains("rank 1 idle: 1.2 µs of 2.0 µs"), "{svg}");
        let link = |src, dst, bytes| Link { src, dst, transport: "HCCS".into(), ops: 1, bytes, transit_ns: 1 };
        let links = [link(0, 1, 1_000_000), link(1, 0, 1_000)];
        let refs: Vec<&Link> = links.iter().collect();
        let map = comm_heat_map(&refs).unwrap().into_string();
        assert!(map.contains("rank 0 → rank 1: 1.0 MB") && map.contains("rank 1 → rank 0: 0.0 MB"), "{map}");
        assert!(comm_heat_map(&[]).is_none());
    }

    #[test]
    fn the_step_heat_map_shades_lateness_and_names_each_cell() {
        let heat = prof_core::rank_summary::StepHeat {
            ranks: vec![0, 7],
            steps: vec![0, 5],
            late_ns: vec![vec![Some(0), Some(1_000)], vec![Some(4_000), None]],
        };
        let svg = step_heat_map(&heat).unwrap().into_string();
        assert!(svg.contains("rank 7, step 0: started 4.0 µs after the earliest rank"), "{svg}");
        assert!(svg.contains("#ff2828"), "the latest cell is the darkest: {svg}");
        assert!(!svg.contains("rank 7, step 5"), "no cell where the rank has no step");
        let none = prof_core::rank_summary::StepHeat { late_ns: vec![vec![Some(0)]], ..heat };
        assert!(step_heat_map(&none).is_none(), "nothing late: no map");
    }
}
