// The frame around every page: the error bar and notices, the confirmation dialog, the sign-in
// screen, the top bar (dispatch state, dead-letter count, pause/resume) and the auto refresh of the
// page being shown.

import { api, signOut } from './api.js';
import { $, h } from './dom.js';

const REFRESH_MS = 5000;

let refreshTimer = null;
let current = null; // { name, arg, refresh }

/** Makes this the page being shown: the one auto refresh calls; a page still loading sees it was left. */
export function openPage(name, arg) {
  current = { name, arg, refresh: null };
  return current;
}

export function isCurrent(view) {
  return current === view;
}

// ---- errors ---------------------------------------------------------------------------------

function showError(e, doing) {
  if (e && e.status === 401) {
    signOut();
    showSignIn('Your session ended or the password changed: sign in again.');
    return;
  }
  const problem = (e && e.problem) || {};
  const fields = (problem.errors || []).map(f => h('li', {}, h('code', {}, f.field), ` ${f.message}`));
  const box = h('div.error-box', {},
    h('div', {},
      h('strong', {}, `${doing} failed`),
      ` — ${e && e.status ? `HTTP ${e.status} ` : ''}${problem.title || ''}`,
      problem.detail ? h('div.detail', {}, problem.detail) : (e && !e.status ? h('div.detail', {}, e.message) : null),
      fields.length ? h('ul', {}, fields) : null),
    h('button.link', { type: 'button', 'aria-label': 'Dismiss error', onclick: () => box.remove() }, '✕'));
  $('errors').append(box);
  while ($('errors').children.length > 3) {
    $('errors').firstElementChild.remove();
  }
}

export async function attempt(doing, action) {
  try {
    return await action();
  } catch (e) {
    showError(e, doing);
    return undefined;
  }
}

export function notice(text, kind = 'ok') {
  const box = h(`div.notice.${kind}`, { role: 'status' }, text,
    h('button.link', { type: 'button', 'aria-label': 'Dismiss', onclick: () => box.remove() }, '✕'));
  $('errors').append(box);
  setTimeout(() => box.remove(), 12000);
}

export function confirmDialog(title, text, ok) {
  return new Promise(resolve => {
    const dialog = $('confirm');
    $('confirm-title').textContent = title;
    $('confirm-text').textContent = text;
    $('confirm-ok').textContent = ok;
    dialog.returnValue = '';
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });
}

// ---- sign-in --------------------------------------------------------------------------------

export function showSignIn(message) {
  stopRefresh();
  $('app').hidden = true;
  $('signin').hidden = false;
  const error = $('signin-error');
  error.hidden = !message;
  error.textContent = message || '';
  $('signin-user').focus();
}

// ---- header and refresh ---------------------------------------------------------------------

let paused = false;

export async function refreshHeader(stats) {
  const s = stats || await api.get('admin/stats');
  paused = s.paused;
  $('dispatch-state').textContent = paused ? 'Dispatching paused' : 'Dispatching';
  $('dispatch-state').className = `state ${paused ? 'paused' : 'running'}`;
  $('toggle-dispatch').textContent = paused ? 'Resume dispatching' : 'Pause dispatching';
  const pill = $('nav-dead');
  pill.hidden = s.dead === 0;
  pill.textContent = s.dead.toLocaleString();
  return s;
}

export async function toggleDispatch() {
  const resume = paused;
  if (!resume && !await confirmDialog('Pause dispatching?',
    'Every node stops claiming rows within one poll. Producers keep writing; nothing is lost.', 'Pause')) {
    return;
  }
  await attempt(resume ? 'Resume' : 'Pause', async () => {
    await api.post(`admin/dispatcher/${resume ? 'resume' : 'pause'}`);
    notice(resume ? 'Dispatching resumed on every node.' : 'Dispatching paused on every node.');
    await refresh();
  });
}

function stopRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = null;
}

export function scheduleRefresh() {
  stopRefresh();
  if ($('auto-refresh').checked) {
    refreshTimer = setTimeout(async () => {
      if (!$('confirm').open && !document.hidden) {
        await refresh();
      }
      scheduleRefresh();
    }, REFRESH_MS);
  }
}

async function refresh() {
  if (current && current.refresh) {
    await attempt('Refresh', current.refresh);
  } else {
    await attempt('Refresh', () => refreshHeader());
  }
}
