#include "render/report_html_parts.h"

namespace gpudoctor {

const char* ReportHtmlCss() {
  return R"css(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 16px 20px 40px; max-width: 1400px; color: #1b1f24; background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", sans-serif; }
h1 { font-size: 22px; margin: 4px 0 8px; }
h2 { font-size: 18px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 15px; margin: 0 0 6px; }
h4 { font-size: 13px; margin: 10px 0 4px; color: #57606a; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 4px; padding: 6px 8px; margin: 4px 0;
  white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; margin: 6px 0 14px; width: 100%; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.below { color: #b3261e; font-weight: 600; }
td.msg { word-break: break-word; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 6px 0 12px; }
.meta dt { color: #57606a; }
.meta dd { margin: 0; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600; font-size: 12px;
  border: 1px solid currentColor; }
.verdict { font-size: 16px; }
.sev-ok { color: #1a7f37; }
.sev-info { color: #0969da; }
.sev-warning { color: #9a6700; }
.sev-critical { color: #b3261e; }
.gpu-head { display: flex; flex-wrap: wrap; gap: 10px; align-items: baseline; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 10px 18px; }
.chart-box { margin: 0; border: 1px solid #d0d7de; border-radius: 6px; padding: 6px 8px 2px; break-inside: avoid; }
.chart-box figcaption { font-weight: 600; display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
.chart-box .unit { font-weight: 400; color: #57606a; }
.legend { font-weight: 400; font-size: 12px; display: inline-flex; gap: 10px; }
.swatch { display: inline-block; width: 14px; height: 3px; margin-right: 4px; vertical-align: middle; }
svg.chart { width: 100%; height: auto; display: block; }
svg.chart .plot { fill: #fff; stroke: #d0d7de; }
svg.chart .grid { stroke: #eaeef2; stroke-width: 1; }
svg.chart .tick, svg.chart .axis-unit { font-size: 11px; fill: #57606a; }
svg.chart .line { fill: none; stroke-width: 2; stroke-linejoin: round; }
svg.chart .line.s0, svg.chart .dot.s0 { stroke: #1f77b4; }
svg.chart .line.s1, svg.chart .dot.s1 { stroke: #ff7f0e; }
svg.chart .line.s2, svg.chart .dot.s2 { stroke: #2ca02c; }
svg.chart .line.s3, svg.chart .dot.s3 { stroke: #9467bd; }
svg.chart .line.s4, svg.chart .dot.s4 { stroke: #8c564b; }
svg.chart .line.s5, svg.chart .dot.s5 { stroke: #e377c2; }
svg.chart .line.s6, svg.chart .dot.s6 { stroke: #17becf; }
svg.chart .line.limit { stroke: #6e7781; stroke-dasharray: 6 4; stroke-width: 1.5; }
svg.chart .dot.s0 { fill: #1f77b4; }
svg.chart .dot.s1 { fill: #ff7f0e; }
svg.chart .dot.s2 { fill: #2ca02c; }
svg.chart .dot.s3 { fill: #9467bd; }
svg.chart .dot.s4 { fill: #8c564b; }
svg.chart .dot.s5 { fill: #e377c2; }
svg.chart .dot.s6 { fill: #17becf; }
svg.chart .dot.limit { fill: #6e7781; stroke: #6e7781; }
.swatch.s0 { background: #1f77b4; }
.swatch.s1 { background: #ff7f0e; }
.swatch.s2 { background: #2ca02c; }
.swatch.s3 { background: #9467bd; }
.swatch.s4 { background: #8c564b; }
.swatch.s5 { background: #e377c2; }
.swatch.s6 { background: #17becf; }
.swatch.limit { background: #6e7781; }
svg.chart .threshold { stroke: #cf222e; stroke-dasharray: 3 3; stroke-width: 1.2; }
svg.chart .threshold-label { font-size: 11px; fill: #cf222e; }
svg.chart .marker line { stroke: #8250df; stroke-width: 1.5; }
svg.chart .marker.finding line { stroke: #bf3989; stroke-dasharray: 2 2; }
svg.chart .marker .hit { fill: transparent; }
svg.chart .marker.port-down line { stroke: #bc4c00; stroke-dasharray: 4 2; }
svg.chart .marker.port-drop line { stroke: #cf222e; stroke-width: 2.5; }
svg.chart .marker.port-flap line { stroke: #cf222e; stroke-dasharray: 2 2; }
.mark { font-weight: 600; padding: 0 4px; border-radius: 3px; }
.mark-flap, .mark-drop { color: #fff; background: #cf222e; }
.mark-down { color: #fff; background: #bc4c00; }
svg.chart .band { fill: #d4a72c; fill-opacity: 0.18; }
svg.chart .band.band-critical { fill: #cf222e; fill-opacity: 0.15; }
svg.chart .band.band-info { fill: #0969da; fill-opacity: 0.10; }
.no-data-text { color: #57606a; font-style: italic; margin: 28px 0; text-align: center; }
.note { color: #57606a; font-size: 12.5px; }
.finding { border: 1px solid #d0d7de; border-left: 5px solid currentColor; border-radius: 6px; padding: 8px 12px;
  margin: 10px 0; break-inside: avoid; }
.finding > * { color: #1b1f24; }
.finding ul, .finding ol { margin: 2px 0; padding-left: 22px; }
.src { color: #57606a; font-size: 12px; }
@media (max-width: 700px) {
  body { padding: 8px; }
  .charts { grid-template-columns: 1fr; }
}
@media print {
  @page { margin: 12mm; }
  body { max-width: none; padding: 0; font-size: 11px; background: #fff; color: #000; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  section.gpu { break-before: page; }
  .charts { grid-template-columns: 1fr 1fr; }
  .chart-box, .finding, tr { break-inside: avoid; }
  pre, th { background: #fff; }
}
)css";
}

}  // namespace gpudoctor
