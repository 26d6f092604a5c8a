//! The login page at `/`: a username field, a password field and a "Sign in" button.

use crate::config::Credentials;
use crate::html::brand;
use crate::html::escape;
use crate::html::page;
use crate::page_options::PageOptions;
use crate::scripts;
use crate::scripts::PageScript;

/// Renders the login page. `error` shows a message above the fields (a failed attempt);
/// `username` pre-fills the username field; the parameters the request gave (`options.carry`,
/// e.g. `?layout=v2`) are carried into the form's action so they survive the submit.
pub fn render(
    options: &PageOptions,
    credentials: &Credentials,
    error: Option<&str>,
    username: &str,
) -> String {
    let layout_query = &options.carry;
    let alert = match error {
        Some(message) => format!(
            "<div class=\"alert\" id=\"login-error\" role=\"alert\">{}</div>",
            escape(message)
        ),
        None => String::new(),
    };
    let username = escape(username);
    let hint_user = escape(&credentials.username);
    let hint_password = escape(&credentials.password);
    let body = format!(
        "{brand}\
         <div class=\"card login-card\">\
         <h1>Sign in</h1>\
         <p class=\"muted\">Welcome back. Sign in to your workspace.</p>\
         {alert}\
         <form id=\"login-form\" method=\"post\" action=\"/login{layout_query}\">\
         <div class=\"field\"><label for=\"username\">Username</label>\
         <input class=\"input\" id=\"username\" name=\"username\" type=\"text\" \
         autocomplete=\"off\" spellcheck=\"false\" value=\"{username}\"></div>\
         <div class=\"field\"><label for=\"password\">Password</label>\
         <input class=\"input\" id=\"password\" name=\"password\" type=\"password\" \
         autocomplete=\"off\"></div>\
         <div class=\"actions\"><button class=\"btn\" id=\"sign-in\" type=\"submit\">Sign in\
         </button></div>\
         </form>\
         <p class=\"login-hint\">Demo account: <code>{hint_user}</code> / \
         <code>{hint_password}</code></p>\
         </div>",
        brand = brand(""),
    );
    let script = PageScript::place(scripts::LOGIN_FILE, options, script());
    page(
        "Sign in · Ledgerline",
        options.layout,
        "login",
        &body,
        &script,
    )
}

/// The login page's script: shows that the submit is under way while the (possibly slow)
/// server answers.
pub fn script() -> String {
    format!("{SCRIPT}{}", scripts::READY_MARK)
}

const SCRIPT: &str = "document.getElementById('login-form').addEventListener('submit',function(){\
var b=document.getElementById('sign-in');b.disabled=true;b.textContent='Signing in...';});";
