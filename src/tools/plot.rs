//! The review's graph (`tengen review --plot FILE.svg|FILE.png`), drawn with plotters:
//! Black's win rate above, Black's score lead below, both against the move number, the
//! mistakes marked on both and labelled with their move ("37 D4") where a label fits
//! without covering another. The format follows the file's extension. SVG text is text
//! (the viewer's sans-serif); PNG text is drawn with the DejaVu Sans subset under
//! `assets/fonts`, compiled in, so neither format needs system fonts or libraries.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{Color as _, FontStyle};

use crate::board::Color;

/// Width and height of the picture in pixels.
const SIZE: (u32, u32) = (1000, 640);
/// At most this many mistakes get a label (the biggest); the others are marked only.
const MAX_LABELS: usize = 14;
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Latin.ttf");
const FAMILY: &str = "sans-serif";
const LEAD_COLOR: RGBColor = RGBColor(31, 96, 180);
const MISTAKE_COLOR: RGBColor = RGBColor(200, 30, 30);

/// The picture formats, by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    pub fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "svg" => Some(Format::Svg),
            "png" => Some(Format::Png),
            _ => None,
        }
    }
}

/// `--plot`'s value: a path ending in `.svg` or `.png`, refused before the review starts
/// rather than after it.
pub fn parse_path(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match Format::of(&path) {
        Some(_) => Ok(path),
        None => Err(format!(
            "{s}: the graph's format follows its extension, .svg or .png"
        )),
    }
}

/// One mistake to mark: the move that lost, and how much.
#[derive(Clone, Debug)]
pub struct Mark {
    /// 1-based move number: the point after this move is marked.
    pub number: usize,
    pub color: Color,
    /// The label, e.g. `37 D4`.
    pub label: String,
    /// Win rate lost (0..1), which orders the labels.
    pub loss: f64,
}

/// What the graph shows.
#[derive(Clone, Debug)]
pub struct Graph {
    pub title: String,
    pub subtitle: String,
    /// Black's win rate (0..1) after k moves, k = 0..=moves.
    pub winrate: Vec<f64>,
    /// Black's score lead in points (komi included) after k moves.
    pub lead: Vec<f64>,
    pub mistakes: Vec<Mark>,
}

/// Draws the graph into `path`, as SVG or PNG by its extension.
pub fn write(graph: &Graph, path: &Path) -> anyhow::Result<()> {
    static FONT_ONCE: Once = Once::new();
    FONT_ONCE.call_once(|| {
        // The bundled font is valid; should it not be, SVG text is unaffected and PNG
        // drawing reports the missing font below.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
    let fail = |e: String| anyhow::anyhow!("{}: {e}", path.display());
    match Format::of(path) {
        Some(Format::Svg) => {
            let root = SVGBackend::new(path, SIZE).into_drawing_area();
            draw(&root, graph).map_err(|e| fail(e.to_string()))?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        Some(Format::Png) => {
            let root = BitMapBackend::new(path, SIZE).into_drawing_area();
            draw(&root, graph).map_err(|e| fail(e.to_string()))?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        None => Err(fail(
            "the graph's format follows its extension, .svg or .png".into(),
        )),
    }
}

/// The move-number ticks: a round step (1, 2, 5, 10, 20, 25, 50...) giving at most 13
/// intervals, from 0 to the last move.
pub fn move_ticks(moves: usize) -> Vec<i32> {
    let step = round_step(moves as f64, 13);
    (0..=moves).step_by(step).map(|k| k as i32).collect()
}

/// The score axis: a round bound over every lead (at least 5 points) and its ticks, at
/// most four a side.
pub fn lead_ticks(leads: &[f64]) -> (f64, Vec<f64>) {
    let most = leads
        .iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let most = (most * 1.08).max(5.0);
    let step = round_step(most, 4) as f64;
    let sides = (most / step).ceil() as i32;
    let ticks = (-sides..=sides).map(|i| i as f64 * step).collect();
    (sides as f64 * step, ticks)
}

/// The smallest of 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500... that cuts `span` into
/// at most `most` steps.
fn round_step(span: f64, most: usize) -> usize {
    let mut scale = 1;
    loop {
        for m in [1, 2, 5, 10, 20, 25, 50] {
            let step = m * scale;
            if span / step as f64 <= most as f64 {
                return step;
            }
        }
        scale *= 100;
    }
}

/// A value axis with the ticks given (plotters' own `with_key_points` on an `f64` range
/// loses its label formatter).
#[derive(Clone, Debug)]
struct Axis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Axis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = if span > 0.0 {
            (v - self.range.start) / span
        } else {
            0.5
        };
        limit.0 + (t * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// A label's box in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    fn overlaps(&self, o: &Rect, pad: f64) -> bool {
        self.x0 < o.x1 + pad && o.x0 < self.x1 + pad && self.y0 < o.y1 + pad && o.y0 < self.y1 + pad
    }

    fn inside(&self, xs: &Range<i32>, ys: &Range<i32>) -> bool {
        self.x0 >= xs.start as f64
            && self.x1 <= xs.end as f64
            && self.y0 >= ys.start as f64
            && self.y1 <= ys.end as f64
    }

    /// How many of the polyline's segments pass through the box.
    fn crossings(&self, line: &[(f64, f64)]) -> usize {
        line.windows(2)
            .filter(|s| {
                let ((xa, ya), (xb, yb)) = (s[0], s[1]);
                let (lo, hi) = (xa.max(self.x0), xb.min(self.x1));
                if lo > hi {
                    return false;
                }
                let y = |x: f64| {
                    if xb > xa {
                        ya + (yb - ya) * (x - xa) / (xb - xa)
                    } else {
                        ya
                    }
                };
                let (y0, y1) = (y(lo), y(hi));
                y0.min(y1) <= self.y1 && y0.max(y1) >= self.y0
            })
            .count()
    }
}

/// A label to place: its marker's pixel, its text's size, and whether it would rather
/// sit below the marker (Black's mistakes: Black's win rate fell into the marker from
/// above) or above it (White's).
pub struct Pending {
    pub at: (f64, f64),
    pub size: (f64, f64),
    pub below: bool,
}

/// Places labels greedily, in the order given (the biggest mistake first): each takes the
/// spot that stays inside the plot and covers no placed label and no marker, weighing
/// how far it is from the marker against how often it crosses the curve; a label with no
/// such spot is left out (`None`).
pub fn place_labels(
    pending: &[Pending],
    curve: &[(f64, f64)],
    xs: &Range<i32>,
    ys: &Range<i32>,
) -> Vec<Option<Rect>> {
    const GAP: f64 = 7.0;
    const PAD: f64 = 3.0;
    let markers: Vec<Rect> = pending
        .iter()
        .map(|p| Rect {
            x0: p.at.0 - 5.0,
            y0: p.at.1 - 5.0,
            x1: p.at.0 + 5.0,
            y1: p.at.1 + 5.0,
        })
        .collect();
    let mut placed: Vec<Rect> = Vec::new();
    pending
        .iter()
        .map(|p| {
            let (w, h) = p.size;
            let mut best: Option<(usize, Rect)> = None;
            for (side, row, shift) in spots(p.below) {
                let top = if side {
                    p.at.1 + GAP + row as f64 * (h + PAD)
                } else {
                    p.at.1 - GAP - h - row as f64 * (h + PAD)
                };
                let left = p.at.0 - w / 2.0 + shift * (w / 2.0 + 6.0);
                let r = Rect {
                    x0: left,
                    y0: top,
                    x1: left + w,
                    y1: top + h,
                };
                if !r.inside(xs, ys)
                    || placed.iter().any(|o| r.overlaps(o, PAD))
                    || markers.iter().any(|m| r.overlaps(m, 0.0))
                {
                    continue;
                }
                // A crossing of the curve costs about as much as a row further off (the
                // label's white ground keeps it legible either way).
                let cost = 3 * r.crossings(curve)
                    + 2 * row
                    + usize::from(side != p.below)
                    + usize::from(shift != 0.0);
                if best.is_none_or(|(c, _)| cost < c) {
                    best = Some((cost, r));
                }
            }
            let r = best.map(|(_, r)| r);
            placed.extend(r);
            r
        })
        .collect()
}

/// The spots tried around a marker, nearest first: (below?, row away, horizontal shift
/// in half widths).
fn spots(below: bool) -> impl Iterator<Item = (bool, usize, f64)> {
    (0..4).flat_map(move |row| {
        [below, !below].into_iter().flat_map(move |side| {
            [0.0, -1.0, 1.0]
                .into_iter()
                .map(move |shift| (side, row, shift))
        })
    })
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, g: &Graph) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let moves = g.winrate.len().saturating_sub(1);
    let n = moves.max(1) as i32;
    let (head, body) = root.split_vertically(78);
    draw_head(&head, g)?;
    draw_key(root)?;
    let body_h = body.dim_in_pixel().1;
    let (top, bottom) = body.split_vertically(body_h * 3 / 5);
    let label_style = (FAMILY, 14).into_font();
    let desc_style = (FAMILY, 15).into_font();

    // Black's win rate.
    let mut wc = ChartBuilder::on(&top)
        .margin_left(12)
        .margin_right(28)
        .margin_top(6)
        .x_label_area_size(8)
        .y_label_area_size(78)
        .build_cartesian_2d(
            (0..n).with_key_points(move_ticks(moves)),
            Axis {
                range: 0.0..100.0,
                ticks: vec![0.0, 25.0, 50.0, 75.0, 100.0],
            },
        )?;
    wc.configure_mesh()
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&|v| format!("{v:.0}%"))
        .y_desc("Black's win rate")
        .label_style(label_style.clone())
        .axis_desc_style(desc_style.clone())
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()?;
    let labelled = labelled(&g.mistakes);
    for m in labelled.iter().map(|&i| &g.mistakes[i]) {
        let x = m.number as i32;
        wc.draw_series(std::iter::once(PathElement::new(
            vec![(x, 0.0), (x, 100.0)],
            MISTAKE_COLOR.mix(0.35).stroke_width(1),
        )))?;
    }
    wc.draw_series(DashedLineSeries::new(
        vec![(0, 50.0), (n, 50.0)],
        6,
        4,
        BLACK.mix(0.45).stroke_width(1),
    ))?;
    let win: Vec<(i32, f64)> = g
        .winrate
        .iter()
        .enumerate()
        .map(|(k, w)| (k as i32, 100.0 * w.clamp(0.0, 1.0)))
        .collect();
    wc.draw_series(
        AreaSeries::new(win.iter().copied(), 0.0, BLACK.mix(0.13))
            .border_style(BLACK.stroke_width(2)),
    )?;
    let win_at = |k: usize| win.get(k).map_or(50.0, |p| p.1);
    for m in &g.mistakes {
        wc.draw_series(marker((m.number as i32, win_at(m.number)), m.color, 5))?;
    }

    // Black's score lead.
    let (bound, ticks) = lead_ticks(&g.lead);
    let mut lc = ChartBuilder::on(&bottom)
        .margin_left(12)
        .margin_right(28)
        .margin_top(10)
        .margin_bottom(6)
        .x_label_area_size(46)
        .y_label_area_size(78)
        .build_cartesian_2d(
            (0..n).with_key_points(move_ticks(moves)),
            Axis {
                range: -bound..bound,
                ticks,
            },
        )?;
    lc.configure_mesh()
        .x_label_formatter(&|k| k.to_string())
        .y_label_formatter(&|v| lead_label(*v))
        .x_desc("Move")
        .y_desc("Black's score lead")
        .label_style(label_style)
        .axis_desc_style(desc_style)
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()?;
    for m in labelled.iter().map(|&i| &g.mistakes[i]) {
        let x = m.number as i32;
        lc.draw_series(std::iter::once(PathElement::new(
            vec![(x, -bound), (x, bound)],
            MISTAKE_COLOR.mix(0.35).stroke_width(1),
        )))?;
    }
    lc.draw_series(LineSeries::new(
        vec![(0, 0.0), (n, 0.0)],
        BLACK.mix(0.45).stroke_width(1),
    ))?;
    let lead: Vec<(i32, f64)> = g
        .lead
        .iter()
        .enumerate()
        .map(|(k, v)| (k as i32, v.clamp(-bound, bound)))
        .collect();
    lc.draw_series(
        AreaSeries::new(lead.iter().copied(), 0.0, LEAD_COLOR.mix(0.15))
            .border_style(LEAD_COLOR.stroke_width(2)),
    )?;
    let lead_at = |k: usize| lead.get(k).map_or(0.0, |p| p.1);
    for m in &g.mistakes {
        lc.draw_series(marker((m.number as i32, lead_at(m.number)), m.color, 4))?;
    }

    // The labels, on the win-rate panel, in pixels.
    let font = (FAMILY, 14).into_text_style(root);
    let pending: Vec<Pending> = labelled
        .iter()
        .map(|&i| {
            let m = &g.mistakes[i];
            let (px, py) = wc.backend_coord(&(m.number as i32, win_at(m.number)));
            let (w, h) = root.estimate_text_size(&m.label, &font).unwrap_or((40, 14));
            Pending {
                at: (px as f64, py as f64),
                size: (w as f64 + 6.0, h as f64 + 4.0),
                below: m.color == Color::Black,
            }
        })
        .collect();
    let curve: Vec<(f64, f64)> = win
        .iter()
        .map(|p| {
            let (x, y) = wc.backend_coord(p);
            (x as f64, y as f64)
        })
        .collect();
    let (xs, ys) = wc.plotting_area().get_pixel_range();
    let spots = place_labels(&pending, &curve, &xs, &ys);
    for ((&i, p), spot) in labelled.iter().zip(&pending).zip(spots) {
        let Some(r) = spot else { continue };
        let m = &g.mistakes[i];
        // A thin leader when the label sits away from its marker.
        let (cx, cy) = ((r.x0 + r.x1) / 2.0, if r.y0 > p.at.1 { r.y0 } else { r.y1 });
        if (cx - p.at.0).abs() > 2.0 || (cy - p.at.1).abs() > 9.0 {
            root.draw(&PathElement::new(
                vec![(p.at.0 as i32, p.at.1 as i32), (cx as i32, cy as i32)],
                MISTAKE_COLOR.mix(0.6).stroke_width(1),
            ))?;
        }
        root.draw(&Rectangle::new(
            [(r.x0 as i32, r.y0 as i32), (r.x1 as i32, r.y1 as i32)],
            WHITE.mix(0.85).filled(),
        ))?;
        root.draw(&Text::new(
            m.label.clone(),
            (r.x0 as i32 + 3, r.y0 as i32 + 2),
            font.color(&MISTAKE_COLOR),
        ))?;
    }
    Ok(())
}

/// The title and the subtitle, each shortened with an ellipsis to the picture's width.
fn draw_head<DB: DrawingBackend>(head: &DrawingArea<DB, Shift>, g: &Graph) -> DrawResult<DB> {
    let width = head.dim_in_pixel().0.saturating_sub(40);
    let title = (FAMILY, 22).into_font().color(&BLACK);
    let sub = (FAMILY, 14).into_font().color(&BLACK.mix(0.75));
    head.draw(&Text::new(
        fit(head, &g.title, &title, width),
        (20, 12),
        title.clone(),
    ))?;
    head.draw(&Text::new(
        fit(head, &g.subtitle, &sub, width),
        (20, 44),
        sub.clone(),
    ))?;
    Ok(())
}

/// The key to the markers, in the bottom right corner beside the x axis's name.
fn draw_key<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    let (w, h) = root.dim_in_pixel();
    let key = (FAMILY, 14).into_font().color(&BLACK.mix(0.75));
    let (mut x, y) = (w as i32 - 300, h as i32 - 22);
    for (color, text) in [
        (Color::Black, "Black's mistake"),
        (Color::White, "White's mistake"),
    ] {
        for c in marker((x, y + 7), color, 5) {
            root.draw(&c)?;
        }
        root.draw(&Text::new(text, (x + 13, y), key.clone()))?;
        x += 150;
    }
    Ok(())
}

/// `text`, cut and ended with an ellipsis if it is wider than `width` pixels.
fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    width: u32,
) -> String {
    let wide = |t: &str| area.estimate_text_size(t, style).map_or(0, |(w, _)| w) > width;
    if !wide(text) {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let cut = format!("{}\u{2026}", chars.iter().collect::<String>().trim_end());
        if !wide(&cut) {
            return cut;
        }
    }
    String::new()
}

/// The indices of the mistakes that get a label: the biggest [`MAX_LABELS`], biggest
/// first.
fn labelled(mistakes: &[Mark]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..mistakes.len()).collect();
    order.sort_by(|&a, &b| {
        mistakes[b]
            .loss
            .total_cmp(&mistakes[a].loss)
            .then(mistakes[a].number.cmp(&mistakes[b].number))
    });
    order.truncate(MAX_LABELS);
    order
}

fn lead_label(v: f64) -> String {
    if v.abs() < 1e-9 {
        "0".into()
    } else if v > 0.0 {
        format!("B+{}", v)
    } else {
        format!("W+{}", -v)
    }
}

/// A mistake's marker: a stone of the mover's colour in a red ring (two circles).
fn marker<C: Copy>(at: C, color: Color, r: i32) -> [Circle<C, i32>; 2] {
    let fill = if color == Color::Black { BLACK } else { WHITE };
    [
        Circle::new(at, r + 2, MISTAKE_COLOR.filled()),
        Circle::new(at, r, fill.filled()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_for_9x9_and_19x19_games() {
        assert_eq!(move_ticks(4), vec![0, 1, 2, 3, 4]);
        assert_eq!(move_ticks(61), (0..=60).step_by(5).collect::<Vec<_>>());
        assert_eq!(move_ticks(250), (0..=240).step_by(20).collect::<Vec<_>>());
        assert_eq!(move_ticks(0), vec![0]);
        let (bound, ticks) = lead_ticks(&[3.0, -18.0]);
        assert_eq!(bound, 20.0);
        assert_eq!(
            ticks,
            vec![-20.0, -15.0, -10.0, -5.0, 0.0, 5.0, 10.0, 15.0, 20.0]
        );
        assert_eq!(lead_ticks(&[0.5]).0, 6.0);
        assert_eq!(lead_ticks(&[f64::NAN, 150.0]).0, 200.0);
    }

    #[test]
    fn extensions_choose_the_format() {
        assert_eq!(Format::of(Path::new("a/g.SVG")), Some(Format::Svg));
        assert_eq!(Format::of(Path::new("g.png")), Some(Format::Png));
        assert!(parse_path("g.pdf").is_err() && parse_path("g").is_err());
    }

    #[test]
    fn labels_never_overlap_and_stay_inside() {
        // Thirty mistakes on neighbouring moves in a low panel: the labels crowd, some
        // must be left out, none may overlap.
        let pending: Vec<Pending> = (0..30)
            .map(|i| Pending {
                at: (
                    100.0 + 6.0 * i as f64,
                    150.0 + if i % 2 == 0 { 20.0 } else { -20.0 },
                ),
                size: (48.0, 18.0),
                below: i % 2 == 0,
            })
            .collect();
        let curve: Vec<(f64, f64)> = pending.iter().map(|p| p.at).collect();
        let (xs, ys) = (60..600, 90..210);
        let placed = place_labels(&pending, &curve, &xs, &ys);
        let boxes: Vec<Rect> = placed.iter().flatten().copied().collect();
        assert!(boxes.len() >= 6, "{boxes:?}");
        assert!(boxes.len() < 30, "some are left out");
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.inside(&xs, &ys));
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b, 0.0), "{a:?} {b:?}");
            }
        }
        // The biggest mistake gets the nearest spot on its preferred side.
        let first = placed[0].unwrap();
        assert!(first.y0 > pending[0].at.1 && first.y0 < pending[0].at.1 + 10.0);
    }
}
