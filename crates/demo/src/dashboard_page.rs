//! The dashboard at `/dashboard`: a welcome line, the invoice table with its search box and
//! "New invoice" modal (with its currency dropdown and the optional "Mark as sent" checkbox),
//! the slow "Generate report" action and the animated sync panel. Its script is in
//! `dashboard_script`.

use crate::config::Layout;
use crate::dashboard_script;
use crate::html::brand;
use crate::html::escape;
use crate::html::page;
use crate::invoices::INVOICES;
use crate::invoices::Status;
use crate::invoices::count_with;
use crate::invoices::format_money;
use crate::invoices::total_with;
use crate::page_options::PageOptions;
use crate::scripts;
use crate::scripts::PageScript;

/// The report button's label in each layout (v2 relabels it; see the crate docs).
pub fn report_button_label(layout: Layout) -> &'static str {
    match layout {
        Layout::V1 | Layout::Rename => "Generate report",
        Layout::V2 => "Export report",
    }
}

/// The "New invoice" button's label in each layout (v2 and rename relabel it; see the crate
/// docs).
pub fn new_invoice_button_label(layout: Layout) -> &'static str {
    match layout {
        Layout::V1 => "New invoice",
        Layout::V2 | Layout::Rename => "Add invoice",
    }
}

/// The New invoice button's content: its label, and in the rename layout the label inside a
/// box that reserves v1's label width (an invisible `::before` of v1's label), so the button
/// keeps v1's width to the fraction of a pixel and nothing beside it moves.
fn new_invoice_button_content(layout: Layout) -> String {
    let label = new_invoice_button_label(layout);
    match layout {
        Layout::V1 | Layout::V2 => label.to_owned(),
        Layout::Rename => format!(
            "<span class=\"same-width\" data-reserve=\"{}\">{label}</span>",
            new_invoice_button_label(Layout::V1)
        ),
    }
}

/// The modal's "Mark as sent" checkbox, when the options ask for it.
fn mark_sent_field(options: &PageOptions) -> &'static str {
    if options.mark_sent {
        "<div class=\"field\"><label class=\"check\" for=\"modal-sent\">\
         <input class=\"checkbox\" id=\"modal-sent\" type=\"checkbox\">Mark as sent</label></div>"
    } else {
        ""
    }
}

/// Renders the dashboard for the signed-in `username`, with `recent` (the "Recently saved"
/// card's HTML, or nothing). The parameters the request gave (`options.carry`, e.g.
/// `?layout=v2`) are carried into the sign-out link.
pub fn render(options: &PageOptions, username: &str, recent: &str) -> String {
    let layout = options.layout;
    let layout_query = &options.carry;
    let username = escape(username);
    let rows: String = INVOICES
        .iter()
        .map(|invoice| {
            format!(
                "<tr data-invoice=\"{number}\"><td>{number}</td><td>{customer}</td>\
                 <td>{issued}</td><td class=\"num\">{amount}</td>\
                 <td><span class=\"{class}\">{label}</span></td></tr>",
                number = invoice.number,
                customer = escape(invoice.customer),
                issued = invoice.issued,
                amount = format_money(invoice.amount_cents),
                class = invoice.status.css_class(),
                label = invoice.status.label(),
            )
        })
        .collect();
    let count = INVOICES.len();
    let awaiting = count_with(Status::Pending);
    let overdue = count_with(Status::Overdue);
    let paid = format_money(total_with(Status::Paid));
    let outstanding = format_money(total_with(Status::Pending) + total_with(Status::Overdue));
    let report_label = report_button_label(layout);
    let new_invoice_label = new_invoice_button_content(layout);
    let mark_sent = mark_sent_field(options);
    let currency = crate::currency::dropdown();
    let body = format!(
        "<header class=\"topbar\"><div class=\"topbar-inner\">{brand}\
         <nav><span class=\"current\">Dashboard</span><span>Invoices</span>\
         <span>Customers</span><span>Settings</span></nav>\
         <div class=\"user\">Signed in as <strong id=\"user-name\">{username}</strong>\
         <a id=\"sign-out\" href=\"/logout{layout_query}\">Sign out</a></div></div></header>\
         <main><section class=\"main-col\">\
         <h1 id=\"welcome\">Welcome back, {username}</h1>\
         <p class=\"summary muted\">You have {awaiting} invoices awaiting payment and \
         {overdue} overdue.</p>\
         <div class=\"card invoices\"><div class=\"card-head\"><h2>Invoices</h2>\
         <input class=\"input\" id=\"search\" type=\"search\" placeholder=\"Search invoices\" \
         aria-label=\"Search invoices\" autocomplete=\"off\">\
         <button class=\"btn\" id=\"new-invoice\" type=\"button\">{new_invoice_label}</button></div>\
         <table id=\"invoices\"><thead><tr><th>Invoice</th><th>Customer</th><th>Issued</th>\
         <th class=\"num\">Amount</th><th>Status</th></tr></thead><tbody>{rows}\
         <tr id=\"no-results\" hidden><td colspan=\"5\">No invoices match your search.</td></tr>\
         </tbody></table>\
         <div class=\"table-foot\" id=\"invoice-count\">Showing {count} of {count} invoices</div>\
         </div></section>\
         <aside class=\"side-col\">\
         <div class=\"card side-card\" id=\"report-panel\"><h2>Monthly report</h2>\
         <p class=\"muted\">Summarise this month's invoices. This can take a moment.</p>\
         <button class=\"btn\" id=\"generate-report\" type=\"button\">{report_label}</button>\
         <div id=\"report-result\" role=\"status\"></div></div>\
         <div class=\"card side-card\" id=\"sync-panel\"><h2>Bank sync</h2>\
         <div class=\"progress\"><div class=\"progress-bar\"></div></div>\
         <div class=\"sync-row\"><span class=\"sync-dot\"></span><span class=\"sync-label\">\
         <span class=\"syncing\">Syncing with your bank...</span>\
         <span class=\"synced\" id=\"sync-done\">All invoices synced</span></span></div></div>\
         <div class=\"card side-card\"><h2>This month</h2><div class=\"stats\">\
         <div class=\"stat\"><span class=\"muted\">Paid</span><strong>{paid}</strong></div>\
         <div class=\"stat\"><span class=\"muted\">Outstanding</span>\
         <strong>{outstanding}</strong></div></div></div>\
         </aside></main>{recent}\
         <div class=\"overlay\" id=\"modal\" hidden><div class=\"modal\" role=\"dialog\" \
         aria-modal=\"true\" aria-labelledby=\"modal-title\"><h2 id=\"modal-title\">New invoice</h2>\
         <form id=\"modal-form\"><div class=\"field\"><label for=\"modal-customer\">Customer</label>\
         <input class=\"input\" id=\"modal-customer\" type=\"text\" autocomplete=\"off\"></div>\
         <div class=\"field\"><label for=\"modal-amount\">Amount</label>\
         <div class=\"amount-row\"><input class=\"input\" id=\"modal-amount\" type=\"text\" \
         autocomplete=\"off\">{currency}</div></div>\
         {mark_sent}<div class=\"modal-actions\">\
         <button class=\"btn secondary\" id=\"modal-close\" type=\"button\">Close</button>\
         <button class=\"btn\" id=\"modal-save\" type=\"submit\">Save draft</button></div>\
         </form></div></div>",
        brand = brand(""),
    );
    let script = PageScript::place(
        scripts::DASHBOARD_FILE,
        options,
        dashboard_script::script(&options.faults, options.recent_drafts),
    );
    page(
        "Dashboard · Ledgerline",
        layout,
        "dashboard",
        &body,
        &script,
    )
}
