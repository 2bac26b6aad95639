extension HTMLReport {
    /// The page's whole stylesheet: system fonts, light and dark themes, a single column on a
    /// phone and wider grids on a laptop; charts and tables scroll sideways in their own box.
    static let css = """
        :root{--bg:#f6f7f9;--panel:#fff;--ink:#1b1f24;--muted:#5b6573;--line:#e3e6ea;--track:#eef0f3;
        --bar:#3b6fd8;--err:#d1242f;--warn:#c98a00;--ok:#1a7f37;--hit-err:#fff1f0;--hit-warn:#fff8e1;--wit:#eef4ff;
        --mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
        @media (prefers-color-scheme:dark){:root{--bg:#0f1216;--panel:#171b21;--ink:#e6e9ee;--muted:#9aa4b2;--line:#2a3039;
        --track:#232932;--bar:#6d9bff;--err:#ff6b6b;--warn:#f0b429;--ok:#4cc26d;--hit-err:#3a1d1f;--hit-warn:#3a2f12;--wit:#1a2740}}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
        header{background:var(--panel);border-bottom:1px solid var(--line)}
        .wrap,main,footer{max-width:1180px;margin:0 auto;padding:0 20px}
        header .wrap{padding-top:18px;padding-bottom:14px}
        h1{font-size:1.55rem;margin:0;display:flex;flex-wrap:wrap;gap:10px;align-items:center}
        h2{font-size:1.2rem;margin:0 0 4px}
        h3{font-size:.95rem;margin:18px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
        .sub,.note,.meta,.legend,footer{color:var(--muted)}
        .sub{margin:6px 0 0}.note{margin:0 0 12px;font-size:.9rem}
        section{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:18px 20px;margin:18px 0}
        code{font-family:var(--mono);font-size:.86em}
        .pill{display:inline-block;font-size:.78rem;font-weight:600;padding:2px 9px;border-radius:999px;color:#fff;vertical-align:middle}
        .pill.err{background:var(--err)}.pill.warn{background:var(--warn)}.pill.ok{background:var(--ok)}
        .pill.none{background:var(--track);color:var(--muted)}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px}
        .card{border:1px solid var(--line);border-radius:8px;padding:10px 12px;border-top:4px solid var(--line)}
        .card .num{font-size:1.45rem;font-weight:650;font-variant-numeric:tabular-nums}
        .card .cap{font-size:.82rem;color:var(--muted)}
        .card.err{border-top-color:var(--err)}.card.warn{border-top-color:var(--warn)}.card.hot{border-top-color:var(--bar)}
        ul.bars{list-style:none;margin:0;padding:0}
        ul.bars li{display:grid;grid-template-columns:minmax(0,1fr) minmax(90px,220px) 110px;gap:12px;align-items:center;
        padding:5px 0;border-bottom:1px solid var(--line)}
        ul.bars li:last-child{border-bottom:0}
        @media (min-width:1000px){ul.bars.cols{display:grid;grid-template-columns:1fr 1fr;column-gap:36px}
        ul.bars.cols li{grid-template-columns:minmax(0,1fr) 100px 92px}
        ul.bars.cols li:nth-last-child(2):nth-child(odd){border-bottom:0}}
        .name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        .name.wrapping{white-space:normal;overflow-wrap:anywhere}
        .hint{display:block;font-size:.8rem;color:var(--muted);white-space:normal}
        .val{text-align:right;font-variant-numeric:tabular-nums;font-weight:600}
        .val small{display:block;font-weight:400;color:var(--muted);font-size:.75rem}
        svg.rowbar{width:100%;height:14px;display:block}
        .sev{display:inline-block;font-size:.72rem;font-weight:700;text-transform:uppercase;padding:0 6px;border-radius:4px;color:#fff}
        .sev.error{background:var(--err)}.sev.warning{background:var(--warn)}
        svg .track{fill:var(--track)}svg .bar{fill:var(--bar)}svg .err{fill:var(--err)}svg .warn{fill:var(--warn)}
        svg .grid{stroke:var(--line);stroke-width:1}svg .axis{stroke:var(--muted);stroke-width:1}
        svg text{fill:var(--muted);font-size:12px;font-family:system-ui,sans-serif}
        svg.chart{width:100%;height:auto;display:block;min-width:520px}
        .scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
        .legend span{margin-right:16px;font-size:.85rem}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
        .legend i.err{background:var(--err)}.legend i.warn{background:var(--warn)}
        .two{display:grid;grid-template-columns:1fr 1fr;gap:24px}
        .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:16px}
        figure{margin:0}figcaption{font-size:.9rem;color:var(--muted);margin-bottom:4px}
        svg.chart.small,svg.chart.half{min-width:0}
        details.session{border:1px solid var(--line);border-radius:8px;margin:12px 0;overflow:hidden}
        details.session summary{cursor:pointer;padding:10px 12px;display:flex;flex-wrap:wrap;gap:8px;align-items:center;background:var(--bg)}
        details.session .final{margin:8px 12px 12px;font-size:.85rem;color:var(--muted);overflow-wrap:anywhere}
        table{border-collapse:collapse;width:100%;font-size:.88rem}
        th{text-align:left;color:var(--muted);font-weight:600;border-bottom:1px solid var(--line);padding:6px 8px}
        td{padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
        td.n{text-align:right;font-variant-numeric:tabular-nums}
        table.timeline{min-width:720px}
        table.timeline td.seq,table.timeline td.t{white-space:nowrap;font-variant-numeric:tabular-nums;color:var(--muted)}
        table.timeline td.state{font-size:.82rem;overflow-wrap:anywhere}
        code.ev{font-weight:600}
        .chg{font-family:var(--mono);font-size:.78rem;color:var(--muted)}
        tr.hit.err td{background:var(--hit-err)}tr.hit.warn td{background:var(--hit-warn)}
        tr.hit td:first-child{box-shadow:inset 4px 0 0 var(--err)}tr.hit.warn td:first-child{box-shadow:inset 4px 0 0 var(--warn)}
        tr.witness td{background:var(--wit)}
        .wit{font-size:.78rem;color:var(--bar);font-weight:600}
        tr.finding td{border-bottom:1px solid var(--line)}
        tr.finding.err td{background:var(--hit-err)}tr.finding.warn td{background:var(--hit-warn)}
        .why{font-size:.84rem;color:var(--muted);margin-top:3px}
        .loc{font-size:.78rem;color:var(--muted);font-family:var(--mono);overflow-wrap:anywhere}
        tr.gap td{text-align:center;color:var(--muted);font-style:italic}
        .empty{color:var(--muted);font-style:italic}
        footer{padding-bottom:30px;font-size:.85rem}
        @media (max-width:720px){
          .wrap,main,footer{padding:0 10px}
          section{padding:14px 12px;margin:12px 0;border-radius:8px}
          .two{grid-template-columns:1fr}
          ul.bars li{grid-template-columns:minmax(0,1fr) 76px;gap:4px 10px}
          ul.bars li svg.rowbar{grid-column:1 / -1;grid-row:2}
          .cards{grid-template-columns:repeat(2,1fr)}
          h1{font-size:1.3rem}
        }
        """
}
