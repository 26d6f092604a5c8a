//! The page shell and the one stylesheet every page shares.
//!
//! Pixel determinism is the point here: no web fonts (the generic `sans-serif` family), no
//! external resources (the favicon is an empty data URL), fixed sizes for everything that
//! frames a control, and no hover colour changes, so the same page renders the same pixels in
//! headless Chromium at 1280x800 on every run.

use crate::config::Layout;
use crate::scripts::PageScript;

/// Escapes text for use inside HTML element content and double-quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// A whole HTML document: `title` (escaped here), the shared stylesheet, `body` (already
/// HTML) inside `<body class="layout-{v1|v2|rename} {body_class}">`, and the page's `script`
/// (inline, or a loader for a late one).
pub fn page(
    title: &str,
    layout: Layout,
    body_class: &str,
    body: &str,
    script: &PageScript,
) -> String {
    let title = escape(title);
    let layout = layout.as_str();
    let script = script.to_html();
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><link rel=\"icon\" href=\"data:,\"><style>{STYLE}</style></head>\
         <body class=\"layout-{layout} {body_class}\">{body}{script}</body></html>\n"
    )
}

/// The brand mark and name, shared by the login page and the top bar.
pub fn brand(class: &str) -> String {
    format!("<div class=\"brand {class}\"><span class=\"brand-mark\">L</span>Ledgerline</div>")
}

/// The shared stylesheet. Sizes are in whole pixels on purpose (see the module docs).
const STYLE: &str = r#"
*{box-sizing:border-box;margin:0;padding:0}
html{background:#eef1f5}
body{font-family:sans-serif;font-size:14px;line-height:20px;color:#1f2933;background:#eef1f5}
button,input,select{font-family:inherit;font-size:14px}
a{color:#1d4ed8;text-decoration:none}
h1{font-size:22px;line-height:28px;font-weight:700;color:#111827}
h2{font-size:16px;line-height:24px;font-weight:700;color:#111827}
.muted{color:#5b6675}
.brand{display:flex;align-items:center;font-size:18px;line-height:28px;font-weight:700;color:#111827}
.brand-mark{display:inline-block;width:28px;height:28px;margin-right:10px;border-radius:6px;background:#2563eb;color:#fff;text-align:center;font-size:16px;line-height:28px}
.card{background:#fff;border:1px solid #d9dee5;border-radius:8px}
.btn{display:inline-block;height:40px;padding:0 18px;border:0;border-radius:6px;background:#2563eb;color:#fff;font-weight:700;line-height:40px;cursor:pointer}
.btn:disabled{background:#93a8d8;cursor:default}
.btn.secondary{background:#fff;color:#1f2933;border:1px solid #c3cad4;line-height:38px}
.btn:focus{outline:none;box-shadow:0 0 0 3px rgba(37,99,235,.25)}
.field{display:block}
.field+.field{margin-top:16px}
.field label{display:block;margin-bottom:6px;font-size:13px;line-height:16px;font-weight:700;color:#374151}
.input{display:block;width:100%;height:40px;padding:0 12px;border:1px solid #c3cad4;border-radius:6px;background:#fff;color:#111827}
.input:focus{outline:none;border-color:#2563eb;box-shadow:0 0 0 3px rgba(37,99,235,.2)}
.login .brand{justify-content:center;margin-top:96px}
.login-card{width:400px;margin:28px auto 0;padding:40px 40px 0}
.login-card .muted{margin-top:4px}
.login-card form{margin-top:24px}
.alert{margin-top:20px;padding:10px 12px;border:1px solid #f1b4b4;border-radius:6px;background:#fdecec;color:#9b1c1c;font-weight:700}
.actions{height:136px;padding-top:36px}
#sign-in{width:140px;height:44px;line-height:44px}
.layout-v2 #sign-in{position:relative;left:40px;top:24px}
.login-hint{margin:0 -40px;padding:14px 40px;border-top:1px solid #e5e8ed;background:#f8f9fb;border-radius:0 0 8px 8px;font-size:13px;color:#5b6675}
.login-hint code{font-family:monospace;font-size:13px;color:#111827}
.topbar{height:56px;background:#1e293b;color:#e2e8f0}
.topbar-inner{display:flex;align-items:center;width:1216px;height:56px;margin:0 auto}
.topbar .brand{color:#fff}
.topbar nav{display:flex;margin-left:40px}
.topbar nav span{margin-right:28px;color:#94a3b8}
.topbar nav span.current{color:#fff;font-weight:700}
.topbar .user{margin-left:auto;color:#cbd5e1}
.topbar .user a{margin-left:16px;color:#93c5fd}
.dashboard main{display:flex;width:1216px;margin:32px auto 0}
.main-col{width:808px}
.side-col{width:384px;margin-left:24px}
#welcome{font-size:24px;line-height:32px}
.summary{margin-top:4px}
.invoices{margin-top:24px}
.card-head{display:flex;align-items:center;height:68px;padding:0 20px;border-bottom:1px solid #e5e8ed}
.card-head h2{margin-right:auto}
#search{width:240px;height:36px;margin-right:12px}
#new-invoice{height:36px;line-height:36px}
.layout-v2 #new-invoice{background:#fff7ed;color:#9a3412;border:2px solid #ea580c;line-height:32px}
.layout-rename #new-invoice .same-width{display:inline-block}
.layout-rename #new-invoice .same-width::before{content:attr(data-reserve);display:block;height:0;overflow:hidden;visibility:hidden}
table{width:100%;border-collapse:collapse}
th{height:36px;padding:0 20px;background:#f8f9fb;border-bottom:1px solid #e5e8ed;text-align:left;font-size:12px;font-weight:700;color:#5b6675;text-transform:uppercase}
td{height:40px;padding:0 20px;border-bottom:1px solid #eef1f5;white-space:nowrap}
td.num,th.num{text-align:right}
.badge{display:inline-block;height:22px;padding:0 10px;border-radius:11px;font-size:12px;line-height:22px;font-weight:700}
.badge.paid{background:#dcfce7;color:#166534}
.badge.pending{background:#fef3c7;color:#92400e}
.badge.overdue{background:#fee2e2;color:#991b1b}
.badge.draft{background:#e5e7eb;color:#374151}
.table-foot{height:40px;padding:0 20px;line-height:40px;font-size:13px;color:#5b6675}
#no-results td{color:#5b6675;text-align:center}
.side-card{padding:20px}
.side-card+.side-card{margin-top:24px}
.side-card p{margin-top:6px}
#generate-report{width:170px;margin-top:16px}
.layout-v2 #generate-report{background:#fff7ed;color:#9a3412;border:2px solid #ea580c}
#report-result{height:36px;margin-top:12px;font-weight:700;line-height:36px}
#report-result.pending{color:#5b6675}
#report-result.ready{display:inline-block;padding:0 12px;border-radius:6px;color:#fff;background:#15803d}
#report-result.failed{color:#991b1b}
.sync-row{display:flex;align-items:center;margin-top:14px}
.sync-dot{width:10px;height:10px;margin-right:10px;border-radius:5px;background:#16a34a;animation:pulse .6s ease-in-out 4}
.sync-label{position:relative;height:20px;width:300px}
.sync-label span{position:absolute;left:0;top:0}
.syncing{animation:fade-out 0s linear 2.4s forwards}
.synced{opacity:0;color:#166534;font-weight:700;animation:fade-in 0s linear 2.4s forwards}
.progress{height:8px;margin-top:12px;border-radius:4px;background:#e5e8ed;overflow:hidden}
.progress-bar{width:100%;height:8px;background:#16a34a;transform-origin:left;animation:fill 2.4s ease-out forwards}
@keyframes fill{from{transform:scaleX(0)}to{transform:scaleX(1)}}
@keyframes pulse{0%,100%{opacity:1}50%{opacity:.2}}
@keyframes fade-out{to{opacity:0}}
@keyframes fade-in{to{opacity:1}}
.stats{display:flex;margin-top:14px}
.stat{width:50%}
.stat strong{display:block;font-size:20px;line-height:28px;color:#111827}
.overlay{position:fixed;left:0;top:0;width:100%;height:100%;background:rgba(15,23,42,.45)}
.overlay[hidden]{display:none}
.modal{width:440px;margin:160px auto 0;padding:24px;background:#fff;border-radius:8px}
.modal form{margin-top:16px}
.amount-row{display:flex}
#modal-amount{flex:1 1 auto;width:auto;min-width:0}
#modal-currency{flex:none;width:96px;margin-left:12px;padding:0 8px}
.modal-actions{display:flex;justify-content:flex-end;margin-top:24px}
.modal-actions .btn{margin-left:12px}
.field label.check{display:flex;align-items:center;margin-bottom:0;font-size:14px;line-height:24px;cursor:pointer}
.checkbox{appearance:none;display:block;width:20px;height:20px;margin:0 10px 0 0;border:2px solid #8792a2;border-radius:4px;background:#fff;cursor:pointer}
.checkbox:checked{border-color:#2563eb;background:#2563eb;box-shadow:inset 0 0 0 3px #fff}
.checkbox:focus{outline:none}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x">Tom & 'Jerry'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn page_marks_the_layout_and_loads_nothing_external() {
        let script = PageScript::Inline("go();".into());
        let html = page("T <1>", Layout::V2, "login", "<p>x</p>", &script);
        assert!(html.contains("<title>T &lt;1&gt;</title>"));
        assert!(html.contains("class=\"layout-v2 login\""));
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(html.contains("<script>go();</script></body>"));
    }
}
