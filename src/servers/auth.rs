//! A server's authorization on its card: where the sign-in stands (working, your turn in the
//! sign-in window, signed in with which scopes until when), sign in and out, remember the
//! sign-in on this device (opt-in), and the user's own OAuth client for servers that offer no
//! registration.

use leptos::prelude::*;

use crate::sign_in::{Popup, open};
use crate::state::{ServerEntry, use_services};
use engine::auth::{AuthStatus, EnterpriseIdp, Preregistered, SignInPage, expiry_words};
use engine::platform::Platform;

/// Whether the card has anything to say about authorization.
pub fn relevant(entry: &ServerEntry) -> bool {
    entry.data.with(|d| d.auth != AuthStatus::None || d.client.is_some() || d.remember_auth)
}

/// A sign-in that needs the user: where it leads, before anything opens; the window opens only
/// from the button.
#[component]
fn WaitingForYou(entry: ServerEntry, page: SignInPage) -> impl IntoView {
    let svc = use_services();
    let id = StoredValue::new(entry.id.clone());
    let popup = {
        let entry = entry.clone();
        move || entry.data.with(|d| d.popup)
    };
    let warning = page.warning();
    let host = page.host.clone();
    let opened_host = host.clone();
    let open_page = StoredValue::new(page);
    view! {
        <div class="auth-waiting" role="status">
            <p>{move || if popup() == Popup::Opened {
                format!("Your turn: sign in on {opened_host}, in the window that opened. Loopscope waits for it to send \
                    you back.")
            } else {
                "This server wants you to sign in. The sign-in page opens in a window of its own, at:".to_owned()
            }}</p>
            <p class="sign-in-host"><strong>{host}</strong></p>
            {warning.map(|w| view! { <p class="warn">{w}</p> })}
            <div class="card-actions">
                <button type="button" class="primary" on:click=move |_| open_page.with_value(|p| open(p, &entry))>
                    {move || if popup() == Popup::Opened { "Open the sign-in page again" } else { "Open the sign-in page" }}
                </button>
                <button type="button" on:click=move |_| svc.cancel_sign_in(&id.get_value())>"Cancel sign-in"</button>
            </div>
        </div>
    }
}

/// The user's own client (pre-registration): id, and secret for a confidential client.
#[component]
fn OwnClient(entry: ServerEntry) -> impl IntoView {
    let svc = use_services();
    let current = entry.data.with_untracked(|d| d.client.clone()).unwrap_or_default();
    let client_id = RwSignal::new(current.client_id.clone());
    let secret = RwSignal::new(current.client_secret.clone().unwrap_or_default());
    let issuer = RwSignal::new(current.issuer.clone().unwrap_or_default());
    let key = RwSignal::new(current.private_key_pem.clone().unwrap_or_default());
    let workload = RwSignal::new(current.workload_jwt.clone().unwrap_or_default());
    let idp = current.enterprise.clone().unwrap_or_default();
    let idp_endpoint = RwSignal::new(idp.token_endpoint);
    let id_token = RwSignal::new(idp.id_token);
    let idp_client = RwSignal::new(idp.client_id.unwrap_or_default());
    let id = StoredValue::new(entry.id.clone());
    let field = |what: &str| format!("server-{}-client-{what}", id.get_value());
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let trimmed = |s: String| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        let client = trimmed(client_id.get_untracked()).map(|client_id| Preregistered {
            client_id,
            client_secret: trimmed(secret.get_untracked()),
            issuer: trimmed(issuer.get_untracked()),
            private_key_pem: trimmed(key.get_untracked()),
            workload_jwt: trimmed(workload.get_untracked()),
            enterprise: trimmed(idp_endpoint.get_untracked()).zip(trimmed(id_token.get_untracked())).map(
                |(token_endpoint, id_token)| EnterpriseIdp {
                    token_endpoint,
                    id_token,
                    client_id: trimmed(idp_client.get_untracked()),
                },
            ),
        });
        svc.set_client(id.get_value(), client);
        svc.reconnect(id.get_value());
    };
    let has_client = move || entry.data.with(|d| d.client.is_some());
    view! {
        <details class="own-client" open=!current.client_id.is_empty()>
            <summary>"Your own OAuth client"</summary>
            <form on:submit=save aria-label="Your own OAuth client for this server">
                <p class="muted">"For an authorization server that offers neither dynamic registration nor client \
                    metadata documents: register a client there yourself, with the redirect URI "
                    <code>{crate::sign_in::redirect_uri()}</code>", and enter it here."</p>
                <label for=field("id")>"Client id"</label>
                <input id=field("id") type="text" spellcheck="false" autocomplete="off" prop:value=move || client_id.get()
                    on:input=move |ev| client_id.set(event_target_value(&ev))/>
                <label for=field("secret")>"Client secret (only for a confidential client)"</label>
                <input id=field("secret") type="password" autocomplete="off" prop:value=move || secret.get()
                    on:input=move |ev| secret.set(event_target_value(&ev))/>
                <label for=field("key")>"Or its private key, for private_key_jwt (PKCS #8 PEM, EC P-256; kept in memory only)"</label>
                <textarea id=field("key") rows="3" spellcheck="false" autocomplete="off" class="code"
                    placeholder="-----BEGIN PRIVATE KEY-----" prop:value=move || key.get()
                    on:input=move |ev| key.set(event_target_value(&ev))></textarea>
                <label for=field("workload")>"Or a workload identity token, for the JWT-bearer grant (a JWT your platform issued to a workload; kept in memory only)"</label>
                <textarea id=field("workload") rows="2" spellcheck="false" autocomplete="off" class="code"
                    placeholder="eyJ…" prop:value=move || workload.get()
                    on:input=move |ev| workload.set(event_target_value(&ev))></textarea>
                <p class="muted">"A page has no workload identity of its own: this is for trying a server that accepts \
                    one, with a token you copied from the workload. It is a credential: it is masked in the timeline and \
                    never saved or exported."</p>
                <details class="enterprise">
                    <summary>"Enterprise-managed authorization (ID-JAG)"</summary>
                    <p class="muted">"For an authorization server that takes an Identity Assertion JWT from your \
                        enterprise's identity provider: your ID token from that provider is exchanged there for an \
                        ID-JAG, which this client then presents with its own id and secret. The page does not sign \
                        you in at the identity provider itself: paste the ID token. Kept in memory only, masked in the \
                        timeline."</p>
                    <label for=field("idp-endpoint")>"Identity provider's token endpoint"</label>
                    <input id=field("idp-endpoint") type="url" spellcheck="false" autocomplete="off"
                        prop:value=move || idp_endpoint.get() on:input=move |ev| idp_endpoint.set(event_target_value(&ev))/>
                    <label for=field("id-token")>"Your ID token from it"</label>
                    <textarea id=field("id-token") rows="2" spellcheck="false" autocomplete="off" class="code"
                        placeholder="eyJ…" prop:value=move || id_token.get()
                        on:input=move |ev| id_token.set(event_target_value(&ev))></textarea>
                    <label for=field("idp-client")>"This client's id there (optional)"</label>
                    <input id=field("idp-client") type="text" spellcheck="false" autocomplete="off"
                        prop:value=move || idp_client.get() on:input=move |ev| idp_client.set(event_target_value(&ev))/>
                </details>
                <label for=field("issuer")>"Its authorization server (issuer URL, optional)"</label>
                <input id=field("issuer") type="url" spellcheck="false" autocomplete="off" prop:value=move || issuer.get()
                    on:input=move |ev| issuer.set(event_target_value(&ev))/>
                <div class="card-actions">
                    <button type="submit">"Use this client and connect"</button>
                    <Show when=has_client>
                        <button type="button" class="link" on:click=move |_| {
                            client_id.set(String::new());
                            secret.set(String::new());
                            key.set(String::new());
                            workload.set(String::new());
                            idp_endpoint.set(String::new());
                            id_token.set(String::new());
                            idp_client.set(String::new());
                            issuer.set(String::new());
                            svc.set_client(id.get_value(), None);
                        }>"Forget it"</button>
                    </Show>
                </div>
            </form>
        </details>
    }
}

#[component]
pub fn AuthSection(entry: ServerEntry) -> impl IntoView {
    let svc = use_services();
    let id = StoredValue::new(entry.id.clone());
    let data = entry.data;
    let remember_field = format!("server-{}-remember-auth", entry.id);
    let (wait_entry, client_entry) = (entry.clone(), entry.clone());
    let status = move || data.with(|d| d.auth.clone());
    view! {
        <section class="auth" aria-label="Authorization">
            <h4>"Authorization"</h4>
            {move || match status() {
                AuthStatus::None => view! {
                    <p class="muted">"Not signed in."</p>
                    <div class="card-actions">
                        <button type="button" on:click=move |_| svc.sign_in(id.get_value())>"Sign in"</button>
                    </div>
                }.into_any(),
                AuthStatus::Working => view! {
                    <p class="muted" role="status">"Getting authorization: every step is on the timeline's Authorization lane."</p>
                }.into_any(),
                AuthStatus::WaitingForUser { page } => view! { <WaitingForYou entry=wait_entry.clone() page/> }.into_any(),
                AuthStatus::SignedIn { issuer, scopes, expires_at_ms, refreshable, client } => {
                    let expires = expiry_words(expires_at_ms, svc.runtime(|r| r.platform.now_ms()));
                    view! {
                        <dl class="server-info auth-info">
                            <dt>"Signed in"</dt><dd>{format!("at {issuer}")}</dd>
                            <dt>"Scopes"</dt><dd>{if scopes.is_empty() { "none named".to_owned() } else { scopes.join(" ") }}</dd>
                            <dt>"Expires"</dt><dd>{format!("{expires}{}", if refreshable { " · refreshed by itself" } else { "" })}</dd>
                            <dt>"Client"</dt><dd>{client.describe()}</dd>
                        </dl>
                        <div class="card-actions">
                            <button type="button" on:click=move |_| svc.sign_out(id.get_value())>"Sign out"</button>
                        </div>
                    }.into_any()
                }
                AuthStatus::Failed(_) => view! {
                    <p class="muted">"The sign-in failed: the reason is above, and each step is on the timeline."</p>
                    <div class="card-actions">
                        <button type="button" class="primary" on:click=move |_| svc.sign_in(id.get_value())>"Sign in again"</button>
                    </div>
                }.into_any(),
            }}
            <label class="check">
                <input id=remember_field type="checkbox" prop:checked=move || data.with(|d| d.remember_auth)
                    on:change=move |ev| svc.remember_auth(&id.get_value(), event_target_checked(&ev))/>
                "Remember the sign-in on this device"
            </label>
            <Show when=move || data.with(|d| d.remember_auth)>
                <p class="warn">"Tokens are stored unencrypted in this browser's localStorage: anyone with this profile can use them."</p>
            </Show>
            <OwnClient entry=client_entry.clone()/>
        </section>
    }
}
