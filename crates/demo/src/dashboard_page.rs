//! The dashboard at `/dashboard`: a welcome line, the invoice table with its search box and
//! "New invoice" modal, the slow "Generate report" action and the animated sync panel.

use crate::config::Layout;
use crate::html::brand;
use crate::html::escape;
use crate::html::page;
use crate::invoices::INVOICES;
use crate::invoices::Status;
use crate::invoices::count_with;
use crate::invoices::format_money;
use crate::invoices::total_with;

/// The report button's label in each layout (v2 relabels it; see the crate docs).
pub fn report_button_label(layout: Layout) -> &'static str {
    match layout {
        Layout::V1 => "Generate report",
        Layout::V2 => "Export report",
    }
}

/// The "New invoice" button's label in each layout (v2 relabels it too; see the crate docs).
pub fn new_invoice_button_label(layout: Layout) -> &'static str {
    match layout {
        Layout::V1 => "New invoice",
        Layout::V2 => "Add invoice",
    }
}

/// Renders the dashboard for the signed-in `username`. `layout_query` (`""` or
/// `?layout=v2`) is carried into the sign-out link.
pub fn render(layout: Layout, layout_query: &str, username: &str) -> String {
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
    let new_invoice_label = new_invoice_button_label(layout);
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
         </aside></main>\
         <div class=\"overlay\" id=\"modal\" hidden><div class=\"modal\" role=\"dialog\" \
         aria-modal=\"true\" aria-labelledby=\"modal-title\"><h2 id=\"modal-title\">New invoice</h2>\
         <form id=\"modal-form\"><div class=\"field\"><label for=\"modal-customer\">Customer</label>\
         <input class=\"input\" id=\"modal-customer\" type=\"text\" autocomplete=\"off\"></div>\
         <div class=\"field\"><label for=\"modal-amount\">Amount (USD)</label>\
         <input class=\"input\" id=\"modal-amount\" type=\"text\" autocomplete=\"off\"></div>\
         <div class=\"modal-actions\">\
         <button class=\"btn secondary\" id=\"modal-close\" type=\"button\">Close</button>\
         <button class=\"btn\" id=\"modal-save\" type=\"submit\">Save draft</button></div>\
         </form></div></div>",
        brand = brand(""),
    );
    page("Dashboard · Ledgerline", layout, "dashboard", &body, SCRIPT)
}

/// Search filtering, the modal, and the slow report action. Plain ES5, no libraries.
const SCRIPT: &str = r#"
(function(){
var byId=function(id){return document.getElementById(id);};
var search=byId('search'),count=byId('invoice-count'),empty=byId('no-results');
var tbody=document.querySelector('#invoices tbody');
function rows(){return Array.prototype.slice.call(tbody.querySelectorAll('tr[data-invoice]'));}
function filter(){
  var q=search.value.trim().toLowerCase(),all=rows(),shown=0;
  all.forEach(function(r){var hit=r.textContent.toLowerCase().indexOf(q)!==-1;r.hidden=!hit;if(hit){shown++;}});
  count.textContent='Showing '+shown+' of '+all.length+' invoices';
  empty.hidden=shown!==0;
}
search.addEventListener('input',filter);
var modal=byId('modal');
function closeModal(){modal.hidden=true;byId('modal-form').reset();}
byId('new-invoice').addEventListener('click',function(){modal.hidden=false;byId('modal-customer').focus();});
byId('modal-close').addEventListener('click',closeModal);
byId('modal-form').addEventListener('submit',function(e){
  e.preventDefault();
  var customer=byId('modal-customer').value.trim()||'New customer';
  var amount=byId('modal-amount').value.trim()||'0.00';
  var number='INV-'+(1041+rows().length);
  var tr=document.createElement('tr');tr.setAttribute('data-invoice',number);
  [number,customer,'2026-11-21','$'+amount].forEach(function(text,i){var td=document.createElement('td');if(i===3){td.className='num';}td.textContent=text;tr.appendChild(td);});
  var td=document.createElement('td');td.innerHTML='<span class="badge draft">Draft</span>';tr.appendChild(td);
  tbody.insertBefore(tr,empty);closeModal();filter();
});
var button=byId('generate-report'),result=byId('report-result');
button.addEventListener('click',function(){
  button.disabled=true;result.className='pending';result.textContent='Generating report...';
  fetch('/api/report',{credentials:'same-origin'})
    .then(function(r){if(!r.ok){throw new Error('HTTP '+r.status);}return r.json();})
    .then(function(d){result.className='ready';result.textContent='Report ready: '+d.invoices+' invoices, '+d.total+' billed';})
    .catch(function(e){result.className='failed';result.textContent='Report failed: '+e.message;})
    .then(function(){button.disabled=false;});
});
})();
"#;
