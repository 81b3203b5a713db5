//! The closing table of `register --catalog`: one row per zone, version and arch, with what was
//! done.

use super::apply::Row;

/// The rows as aligned columns under a header.
pub fn render(rows: &[Row]) -> String {
    let header = ["ZONE", "KUBERNETES", "ARCH", "ACTION", "DETAIL"];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                r.zone.clone(),
                r.kubernetes_version.clone(),
                r.arch.clone(),
                r.action.clone(),
                r.detail.clone(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cols: [&str; 5]| {
        let mut text = String::new();
        for (i, (col, w)) in cols.iter().zip(widths).enumerate() {
            if i + 1 == cols.len() {
                text.push_str(col);
            } else {
                text.push_str(&format!("{col:<w$}  "));
            }
        }
        format!("{}\n", text.trim_end())
    };
    let mut out = line(header);
    for row in &cells {
        out.push_str(&line([&row[0], &row[1], &row[2], &row[3], &row[4]]));
    }
    out
}
