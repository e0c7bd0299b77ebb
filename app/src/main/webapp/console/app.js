// The ops console: sign-in, hash routes (#/overview, #/dead-letters[/id], #/triggers, #/audit,
// #/browse (every row, filtered), #/rows[/id]), each page a module of pages/; the frame around them is shell.js.

import { signIn, signOut, signedIn } from './api.js';
import { $, h } from './dom.js';
import { attempt, openPage, scheduleRefresh, showSignIn, toggleDispatch } from './shell.js';
import { overviewView } from './pages/overview.js';
import { deadLettersView } from './pages/dead-letters.js';
import { triggersView } from './pages/triggers.js';
import { auditView } from './pages/audit.js';
import { browseView } from './pages/browse.js';
import { rowsView } from './pages/rows.js';

async function onSignIn(event) {
  event.preventDefault();
  const user = $('signin-user').value.trim();
  const password = $('signin-password').value;
  $('signin-submit').disabled = true;
  try {
    await signIn(user, password);
    $('signin-password').value = '';
    start();
  } catch (e) {
    const error = $('signin-error');
    error.hidden = false;
    error.textContent = e.status === 401 ? 'Wrong user name or password.'
      : e.status === 403 ? 'This account is not an outbox admin (role outbox-admin).'
        : `Sign-in failed: ${e.message}`;
  } finally {
    $('signin-submit').disabled = false;
  }
}

function start() {
  $('signin').hidden = true;
  $('app').hidden = false;
  $('who').textContent = signedIn().user;
  if (!location.hash) {
    location.hash = '#/overview';
  }
  route();
}

// ---- routing --------------------------------------------------------------------------------

const views = {
  overview: overviewView,
  'dead-letters': deadLettersView,
  triggers: triggersView,
  audit: auditView,
  browse: browseView,
  rows: rowsView,
};

async function route() {
  if (!signedIn()) {
    showSignIn();
    return;
  }
  const [name, ...rest] = location.hash.replace(/^#\/?/, '').split('?')[0].split('/');
  const view = views[name] ? name : 'overview';
  document.querySelectorAll('nav a').forEach(a => {
    if (a.dataset.view === view) {
      a.setAttribute('aria-current', 'page');
    } else {
      a.removeAttribute('aria-current');
    }
  });
  const main = $('view');
  main.replaceChildren(h('p.muted', {}, 'Loading…'));
  const mine = openPage(view, decodeURIComponent(rest.join('/')) || null);
  await attempt('Loading the page', async () => {
    await views[view](main, mine);
  });
  scheduleRefresh();
}

// ---- start ----------------------------------------------------------------------------------

$('signin-form').addEventListener('submit', onSignIn);
$('signout').addEventListener('click', () => { signOut(); location.hash = ''; showSignIn('Signed out.'); });
$('toggle-dispatch').addEventListener('click', toggleDispatch);
$('auto-refresh').addEventListener('change', scheduleRefresh);
window.addEventListener('hashchange', route);
if (signedIn()) {
  start();
} else {
  showSignIn();
}
