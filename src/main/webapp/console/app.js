// The ops console: sign-in, hash routes (#/overview, #/dead-letters[/id], #/triggers, #/audit,
// #/browse (every row, filtered), #/rows[/id]), auto refresh, and every API error shown in the error bar.

import { api, signIn, signOut, signedIn, query } from './api.js';
import { h, ago, time, duration, shortId, pretty } from './dom.js';
import { drawActivity } from './chart.js';

const KINDS = ['http', 'kv', 'docs', 'dead_letter', 'cron', 'files', 'pubsub', 'email', 'invoke'];
const TARGET_FIELD = { webhook: 'url', handler: 'name', jms: 'destination', kafka: 'topic' };
const REFRESH_MS = 5000;
const $ = (id) => document.getElementById(id);

let refreshTimer = null;
let current = null; // { name, arg, refresh }

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

async function attempt(doing, action) {
  try {
    return await action();
  } catch (e) {
    showError(e, doing);
    return undefined;
  }
}

function notice(text, kind = 'ok') {
  const box = h(`div.notice.${kind}`, { role: 'status' }, text,
    h('button.link', { type: 'button', 'aria-label': 'Dismiss', onclick: () => box.remove() }, '✕'));
  $('errors').append(box);
  setTimeout(() => box.remove(), 12000);
}

function confirmDialog(title, text, ok) {
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

function showSignIn(message) {
  stopRefresh();
  $('app').hidden = true;
  $('signin').hidden = false;
  const error = $('signin-error');
  error.hidden = !message;
  error.textContent = message || '';
  $('signin-user').focus();
}

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

// ---- header and refresh ---------------------------------------------------------------------

let paused = false;

async function refreshHeader(stats) {
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

async function toggleDispatch() {
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

function scheduleRefresh() {
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
  current = { name: view, arg: decodeURIComponent(rest.join('/')) || null, refresh: null };
  const mine = current;
  await attempt('Loading the page', async () => {
    await views[view](main, mine);
  });
  scheduleRefresh();
}

// ---- overview -------------------------------------------------------------------------------

function card(id, label, value, hint, tone) {
  return h(`div.stat${tone ? `.${tone}` : ''}`, {},
    h('div.stat-label', {}, label),
    h('div.stat-value', { id }, value),
    hint ? h('div.stat-hint', {}, hint) : null);
}

async function overviewView(main, view) {
  main.replaceChildren(
    h('section.stats#stats', { 'aria-label': 'Totals' }),
    h('section.card', {},
      h('div.card-head', {}, h('h2', {}, 'Activity, last 60 minutes'), h('span.muted', {}, 'per minute, from the delivery history')),
      h('div#chart')),
    h('div.columns', {},
      h('section.card', {}, h('h2', {}, 'By source kind'), h('div#by-kind')),
      h('section.card', {}, h('h2', {}, 'By app'), h('div#by-app'))),
    h('section.card', {}, h('h2', {}, 'Dispatcher nodes'), h('div#nodes')));
  view.refresh = async () => {
    const [stats, activity, byKind, byApp, nodes] = await Promise.all([
      api.get('admin/stats'), api.get('admin/activity?minutes=60'),
      api.get('admin/breakdown?by=sourceKind&limit=20'), api.get('admin/breakdown?by=appId&limit=20'),
      api.get('admin/nodes')]);
    if (current !== view) {
      return;
    }
    await refreshHeader(stats);
    $('stats').replaceChildren(
      card('count-pending', 'Pending', stats.pending.toLocaleString(), 'due now'),
      card('count-scheduled', 'Scheduled', stats.scheduled.toLocaleString(), 'due later (retries, deliverAt)'),
      card('count-in-flight', 'In flight', stats.inFlight.toLocaleString(), 'claimed, lease held'),
      card('count-held', 'Held', stats.held.toLocaleString(), h('a', { href: '#/triggers' }, 'on hold or disabled'), stats.held ? 'warn' : null),
      card('count-dead', 'Dead', stats.dead.toLocaleString(), h('a', { href: '#/dead-letters' }, 'browse dead letters'), stats.dead ? 'bad' : null),
      card('count-lag', 'Lag', duration(stats.oldestDueAgeSeconds), 'age of the oldest due row', stats.oldestDueAgeSeconds > 60 ? 'warn' : null),
      card('count-delivered', 'Delivered', stats.deliveredLastMinute.toLocaleString(), 'in the last minute', 'good'));
    drawActivity($('chart'), activity.items);
    $('by-kind').replaceChildren(breakdownTable(byKind.items, 'sourceKind', 'Source kind'));
    $('by-app').replaceChildren(breakdownTable(byApp.items, 'appId', 'App'));
    $('nodes').replaceChildren(nodesTable(nodes.items));
  };
  await view.refresh();
}

function breakdownTable(items, key, label) {
  if (!items.length) {
    return h('p.muted', {}, 'Nothing waiting, dead or finished in the last hour.');
  }
  const cell = (item) => key === 'appId'
    ? h('td', {}, h('a.mono', { href: `#/dead-letters?appId=${item.appId}`, title: item.appId }, shortId(item.appId)))
    : h('td', {}, h('span.kind', {}, item.sourceKind));
  return h('table', {},
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, label), h('th.num', { scope: 'col' }, 'Waiting'),
      h('th.num', { scope: 'col' }, 'Claimed'), h('th.num', { scope: 'col' }, 'Dead'),
      h('th.num', { scope: 'col' }, 'Delivered 1 h'), h('th.num', { scope: 'col' }, 'Dead 1 h'))),
    h('tbody', {}, items.map(item => h('tr', {}, cell(item),
      h('td.num', {}, item.waiting.toLocaleString()), h('td.num', {}, item.inFlight.toLocaleString()),
      h(`td.num${item.dead ? '.bad' : ''}`, {}, item.dead.toLocaleString()),
      h('td.num', {}, item.deliveredLastHour.toLocaleString()),
      h('td.num', {}, item.deadLetteredLastHour.toLocaleString())))));
}

function nodesTable(items) {
  if (!items.length) {
    return h('p.muted', {}, 'No dispatcher node has reported yet.');
  }
  return h('table#nodes-table', {},
    h('thead', {}, h('tr', {}, ['Node', 'Status', 'Last tick', 'In flight', 'Started'].map(t => h(`th${t === 'In flight' ? '.num' : ''}`, { scope: 'col' }, t)))),
    h('tbody', {}, items.map(n => h('tr', {},
      h('td.mono', {}, n.node),
      h('td', {}, h(`span.badge.${n.status === 'alive' ? (n.paused ? 'warn' : 'good') : 'bad'}`, {},
        n.status === 'alive' ? (n.paused ? 'paused' : 'alive') : 'stalled')),
      h('td', { title: time(n.lastTickAt) }, `${duration(n.lastTickAgeSeconds)} ago`),
      h('td.num', {}, n.inFlight.toLocaleString()),
      h('td', { title: time(n.startedAt) }, ago(n.startedAt))))));
}

// ---- dead letters ---------------------------------------------------------------------------

function kindSelect(id, value) {
  return h('select', { id, name: 'sourceKind' }, h('option', { value: '' }, 'any kind'),
    KINDS.map(k => h('option', { value: k, selected: k === value }, k)));
}

function hashParams() {
  const q = location.hash.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : location.hash.slice(q + 1));
}

async function deadLettersView(main, view) {
  const id = view.arg && view.arg.split('?')[0];
  if (id) {
    return deadLetterView(main, view, id);
  }
  const params = hashParams();
  const filter = { appId: params.get('appId') || '', sourceKind: params.get('sourceKind') || '', error: params.get('error') || '' };
  const cursors = [null];
  const form = h('form.filters', { 'aria-label': 'Filter dead letters' },
    h('label', {}, 'App id', h('input#dl-app', { name: 'appId', value: filter.appId, placeholder: 'any app', size: 38 })),
    h('label', {}, 'Source kind', kindSelect('dl-kind', filter.sourceKind)),
    h('label', {}, 'Error contains', h('input#dl-error', { name: 'error', value: filter.error, placeholder: 'e.g. 503' })),
    h('button.primary#dl-apply', { type: 'submit' }, 'Apply'),
    h('button', { type: 'button', onclick: () => { location.hash = '#/dead-letters'; } }, 'Clear'));
  const list = h('div#dl-list');
  const pager = h('div.pager');
  const groups = h('div#dl-groups');
  const lanes = h('div#lanes');
  main.replaceChildren(
    h('section.card', {},
      h('div.card-head', {}, h('h2', {}, 'Failures'),
        h('span.muted', {}, 'Dead letters of the filter grouped by trigger and error (ids, times and numbers taken out).')),
      groups),
    h('section.card', {},
      h('div.card-head', {}, h('h2', {}, 'Stuck lanes'),
        h('span.muted', {}, 'Ordered lanes (of the filter\'s app) whose head is dead, on a trigger set to block, or retrying; the rows behind the head wait.')),
      lanes),
    h('section.card', {},
      h('div.card-head', {}, h('h2', {}, 'Dead letters'),
        h('button.danger-outline#dl-replay-all', { type: 'button', onclick: replayAll }, 'Replay all matching…')),
      form, list, pager));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = query({ appId: $('dl-app').value.trim(), sourceKind: $('dl-kind').value, error: $('dl-error').value.trim() });
    location.hash = `#/dead-letters${q}`;
  });

  async function loadGroups() {
    const page = await api.get(`admin/dead-letters/groups${query({ ...filter, limit: 20 })}`);
    if (current !== view) {
      return;
    }
    groups.replaceChildren(page.items.length ? h('table#dl-groups-table', {},
      h('thead', {}, h('tr', {}, ['Rows', 'App', 'Trigger', 'Kind', 'Error', 'Last seen', ''].map(x => h(`th${x === 'Rows' ? '.num' : ''}`, { scope: 'col' }, x)))),
      h('tbody', {}, page.items.map(g => h('tr', {},
        h('td.num', {}, g.count.toLocaleString()),
        h('td.mono', { title: g.appId }, shortId(g.appId)),
        h('td.mono', { title: g.triggerId || '' }, g.triggerId ? shortId(g.triggerId) : '—'),
        h('td', {}, h('span.kind', {}, g.sourceKind)),
        h('td', { title: g.sampleError }, g.errorGroup),
        h('td', { title: g.lastSeen }, ago(g.lastSeen)),
        h('td.actions', {},
          h('button.small.group-replay', { type: 'button', onclick: () => onGroup(g, 'replay') }, 'Replay'),
          h('button.small.danger-outline.group-discard', { type: 'button', onclick: () => onGroup(g, 'discard') }, 'Discard'))))))
      : h('p.empty', {}, 'No failures.'));
  }

  async function onGroup(g, action) {
    const replay = action === 'replay';
    if (!await confirmDialog(replay ? 'Replay this failure?' : 'Discard this failure?',
      `${replay ? 'Puts back into the outbox, due now, attempts reset,' : 'Deletes for good'} up to 1000 of the ${g.count} dead letters of trigger ${g.triggerId ? shortId(g.triggerId) : '—'} that failed with "${g.errorGroup}".`,
      replay ? 'Replay' : 'Discard')) {
      return;
    }
    await attempt(replay ? 'Replay failure' : 'Discard failure', async () => {
      const body = { appId: g.appId, sourceKind: g.sourceKind, errorGroup: g.errorGroup, ...(g.triggerId ? { triggerId: g.triggerId } : {}) };
      const done = await api.post(`admin/dead-letters/${action}`, body);
      const n = replay ? done.replayed : done.discarded;
      notice(`${replay ? 'Replayed' : 'Discarded'} ${n} dead letter${n === 1 ? '' : 's'}${done.more ? '; more of this failure remain: again for the next 1000' : ''}.`);
      cursors.length = 1;
      await load();
    });
  }

  async function loadLanes() {
    const page = await api.get(`admin/lanes${query({ appId: filter.appId, limit: 20 })}`);
    if (current !== view) {
      return;
    }
    lanes.replaceChildren(page.items.length ? h('table#lanes-table', {},
      h('thead', {}, h('tr', {}, ['State', 'Trigger', 'Ordering key', 'Head row', 'Attempts', 'Waiting', 'Last error', 'Since', '']
        .map(x => h(`th${x === 'Attempts' || x === 'Waiting' ? '.num' : ''}`, { scope: 'col' }, x)))),
      h('tbody', {}, page.items.map(l => h('tr', {},
        h('td', {}, h(`span.badge.${l.state === 'blocked' ? 'bad' : 'warn'}`, {}, l.state)),
        h('td.mono', { title: l.triggerId || l.appId }, l.triggerId ? shortId(l.triggerId) : `app ${shortId(l.appId)}`),
        h('td.mono', {}, l.orderingKey),
        h('td', {}, h('a.mono', { href: `#/rows/${l.headId}`, title: l.headId }, shortId(l.headId))),
        h('td.num', {}, l.attempts.toLocaleString()),
        h('td.num', {}, l.waiting.toLocaleString()),
        h('td.error-cell', { title: l.lastError ?? '' }, l.lastError ?? ''),
        // a retrying head's "since" is when it is due again, still ahead
        h('td', { title: time(l.since) }, l.state === 'blocked' ? ago(l.since) : `due ${time(l.since)}`),
        h('td.actions', {},
          l.state === 'blocked' ? h('button.small.danger-outline.lane-skip', { type: 'button', onclick: () => onLane(l, 'skip') }, 'Skip') : null,
          h('button.small.lane-retry', { type: 'button', onclick: () => onLane(l, 'retry') }, 'Retry now'))))))
      : h('p.empty', {}, 'No stuck lanes.'));
  }

  async function onLane(l, action) {
    const skip = action === 'skip';
    const lane = `lane "${l.orderingKey}" of ${l.triggerId ? `trigger ${shortId(l.triggerId)}` : `app ${shortId(l.appId)}`}`;
    const text = skip ? `The ${lane} moves on to its next row; its dead head ${shortId(l.headId)} stays a dead letter.`
      : l.state === 'blocked' ? `The dead head ${shortId(l.headId)} of the ${lane} is replayed, due now, attempts reset, and heads its lane again.`
        : `The head ${shortId(l.headId)} of the ${lane} is due now instead of at its next retry.`;
    if (!await confirmDialog(skip ? 'Skip the dead head?' : 'Retry the head now?', text, skip ? 'Skip' : 'Retry now')) {
      return;
    }
    await attempt(skip ? 'Skip lane' : 'Retry lane', async () => {
      const body = { ...(l.triggerId ? { triggerId: l.triggerId } : { appId: l.appId }), orderingKey: l.orderingKey };
      await api.post(`admin/lanes/${action}`, body);
      notice(skip ? `Lane "${l.orderingKey}" moved on past ${shortId(l.headId)}.` : `Lane "${l.orderingKey}": its head ${shortId(l.headId)} is due now.`);
      cursors.length = 1;
      await load();
    });
  }

  async function load() {
    const page = await api.get(`admin/dead-letters${query({ ...filter, limit: 25, cursor: cursors[cursors.length - 1] })}`);
    if (current !== view) {
      return;
    }
    await loadGroups();
    await loadLanes();
    list.replaceChildren(page.items.length ? deadLetterTable(page.items)
      : h('p.empty', {}, cursors.length > 1 ? 'No more dead letters.' : 'No dead letters match. 🎉'));
    pager.replaceChildren(
      h('button', { type: 'button', disabled: cursors.length === 1, onclick: () => { cursors.pop(); attempt('Paging', load); } }, '← Newer'),
      h('span.muted', {}, `Page ${cursors.length}`),
      h('button#dl-older', { type: 'button', disabled: !page.nextCursor, onclick: () => { cursors.push(page.nextCursor); attempt('Paging', load); } }, 'Older →'));
    await refreshHeader();
  }

  function replayAll() {
    const described = [filter.appId && `app ${filter.appId}`, filter.sourceKind && `kind ${filter.sourceKind}`,
      filter.error && `error containing "${filter.error}"`].filter(Boolean).join(', ');
    return bulkReplay(described, filter, async () => { cursors.length = 1; await load(); });
  }

  view.refresh = load;
  await load();
}

function deadLetterTable(items) {
  return h('table.clickable#dl-table', {},
    h('thead', {}, h('tr', {}, ['Dead since', 'App', 'Kind', 'Attempts', 'Last error', ''].map(t => h(`th${t === 'Attempts' ? '.num' : ''}`, { scope: 'col' }, t)))),
    h('tbody', {}, items.map(d => h('tr', { dataset: { id: d.id } },
      h('td', { title: time(d.deadAt) }, ago(d.deadAt)),
      h('td.mono', { title: d.appId }, shortId(d.appId)),
      h('td', {}, h('span.kind', {}, d.sourceKind)),
      h('td.num', {}, d.attemptCount),
      h('td.error-cell', { title: d.lastError }, d.lastError),
      h('td', {}, h('a.button.small', { href: `#/dead-letters/${d.id}`, 'aria-label': `Open dead letter ${d.id}` }, 'Open'))))));
}

function fields(pairs) {
  return h('dl.fields', {}, pairs.filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v === null || v === undefined ? '—' : v)]));
}

async function deadLetterView(main, view, id) {
  const d = await api.get(`admin/dead-letters/${encodeURIComponent(id)}`);
  const trigger = d.trigger
    ? `${d.trigger.targetType} → ${d.trigger.target}${d.trigger.enabled ? '' : ' (disabled)'}`
    : (d.triggerId ? 'trigger deleted' : '—');
  main.replaceChildren(h('section.card#dl-detail', {},
    h('div.card-head', {},
      h('h2', {}, 'Dead letter ', h('span.mono', {}, d.id)),
      h('div.actions', {},
        h('button.primary#dl-replay', { type: 'button', onclick: replay }, 'Replay'),
        h('button.danger#dl-discard', { type: 'button', onclick: discard }, 'Discard'),
        h('a.button', { href: '#/dead-letters' }, 'Back to the list'))),
    fields([
      ['App', h('span.mono', {}, d.appId)], ['Source kind', h('span.kind', {}, d.sourceKind)],
      ['Attempts', d.attemptCount], ['Dead since', `${time(d.deadAt)} (${ago(d.deadAt)})`],
      ['Created', time(d.createdAt)], ['Trigger', d.triggerId ? h('span', {}, h('span.mono', {}, d.triggerId), h('br'), trigger) : '—'],
      ['Root execution', d.rootExecutionId ? h('a.mono', { href: `#/rows/${d.rootExecutionId}` }, d.rootExecutionId) : '—'],
      d.orderingKey && ['Ordering key', h('span.mono', {}, d.orderingKey)],
      ['Trigger depth', d.triggerDepth], ['Script', d.scriptId], ['Reply to', d.replyTo],
      ['Published by', d.originPrincipal], ['Dead-lettered by', d.deadBy]]),
    h('h3', {}, 'Last error'), h('pre.error-text#dl-error-text', {}, d.lastError),
    h('h3', {}, 'Payload'), h('pre.code#dl-payload', {}, pretty(d.payload))));

  async function replay() {
    await attempt('Replay', async () => {
      await api.post(`admin/dead-letters/${d.id}/replay`);
      notice('Replayed: the row is back in the outbox, due now.');
      location.hash = `#/rows/${d.id}`;
    });
  }

  async function discard() {
    if (!await confirmDialog('Discard this dead letter?', 'It is deleted for good; its payload cannot be replayed afterwards.', 'Discard')) {
      return;
    }
    await attempt('Discard', async () => {
      await api.del(`admin/dead-letters/${d.id}`);
      notice('Dead letter discarded.');
      location.hash = '#/dead-letters';
    });
  }
}

// ---- rows -----------------------------------------------------------------------------------

const FINAL = new Set(['delivered', 'cancelled']);
/** Rows a cancel still reaches (one in flight ends cancelled unless its attempt delivers). */
const CANCELLABLE = new Set(['pending', 'scheduled', 'held', 'in_flight']);

async function rowsView(main, view) {
  const form = h('form.filters', { 'aria-label': 'Find a row' },
    h('label', {}, 'Row id', h('input#row-id', { name: 'id', value: view.arg || '', size: 38, placeholder: 'outbox row id (UUID)', required: true })),
    h('button.primary', { type: 'submit' }, 'Find'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/rows/${encodeURIComponent($('row-id').value.trim())}`;
  });
  const result = h('div#row-result');
  main.replaceChildren(h('section.card', {}, h('h2', {}, 'Find a row'),
    h('p.muted', {}, 'Where an outbox row stands now — pending, scheduled, held, in flight, delivered, dead or cancelled — and every admin action on it.'),
    form, result));
  if (!view.arg) {
    return;
  }
  let last = null;
  view.refresh = async () => {
    if (last && FINAL.has(last)) {
      await refreshHeader();
      return;
    }
    const r = await api.get(`admin/rows/${encodeURIComponent(view.arg)}`);
    r.attempts = (await api.get(`outbox/${encodeURIComponent(view.arg)}/attempts`)).items;
    if (current !== view) {
      return;
    }
    last = r.row.status;
    const cascade = r.row.rootExecutionId ? await lineage(r.row.rootExecutionId, r.row.id) : null;
    if (current !== view) {
      return;
    }
    result.replaceChildren(rowDetail(r, view.refresh), ...(cascade ? [cascade] : []));
  };
  await view.refresh();
}

/** A row's delivery log (GET /outbox/{id}/attempts), first attempt first. */
function attemptsTable(items) {
  return h('table#row-attempts', {},
    h('thead', {}, h('tr', {}, ['#', 'Started', 'Took', 'Node', 'Outcome', 'HTTP', 'Error'].map(x => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, items.map(a => h('tr', {},
      h('td.num', {}, a.attempt),
      h('td', { title: a.startedAt }, time(a.startedAt)),
      h('td.num', {}, `${a.durationMs.toLocaleString()} ms`),
      h('td.mono', {}, a.node ?? ''),
      h('td', {}, h(`span.badge.${a.outcome === 'delivered' ? 'good' : a.outcome === 'failed' ? 'warn' : 'bad'}`, {}, a.outcome)),
      h('td.num', {}, a.httpStatus ?? ''),
      h('td', { title: a.answer ?? '' }, a.error ? h('span.error-text', {}, a.error) : '')))));
}

/** The cascade the row belongs to (GET /admin/lineage/{root}) as a nested list, the row itself marked. */
async function lineage(root, here) {
  const l = await api.get(`admin/lineage/${encodeURIComponent(root)}`).catch(() => null);
  if (!l || l.rows < 2) {
    return null;
  }
  const node = (n) => h('li', {},
    h(`a.mono${n.id === here ? '.here' : ''}`, { href: `#/rows/${n.id}` }, n.id.slice(0, 8)), ' ',
    h('span.kind', {}, n.sourceKind), ' ',
    h(`span.badge.status-${n.status}`, {}, n.status.replace('_', ' ')),
    h('span.muted', {}, ` depth ${n.triggerDepth}`),
    n.children.length ? h('ul', {}, n.children.map(node)) : null);
  return h('section', { 'aria-label': 'Cascade' },
    h('h3', {}, `Cascade: ${l.rows} row(s), depth up to ${l.maxDepth}${l.truncated ? ' (cut at 10,000 rows)' : ''}`),
    h('ul.cascade', {}, l.tree.map(node)));
}

function rowDetail(r, refresh) {
  const row = r.row;
  const end = row.status === 'dead' || row.status === 'cancelled' ? row.status : 'delivered';
  const steps = ['pending', 'in_flight', end];
  const waiting = row.status === 'scheduled' || row.status === 'held';
  const reached = waiting ? 0 : steps.indexOf(row.status);
  const cancellable = CANCELLABLE.has(row.status) && !row.cancelRequested;
  return h('div', {},
    h('ol.timeline', { 'aria-label': 'Progress' }, steps.map((s, i) => h(`li${i < reached ? '.done' : ''}${i === reached ? '.now' : ''}${s === 'dead' || s === 'cancelled' ? '.bad' : ''}`, {},
      s === 'pending' && waiting ? row.status : s.replace('_', ' ')))),
    h('p', {}, 'Status: ', h(`span.badge.status-${row.status}#row-status`, {}, row.status.replace('_', ' ')),
      row.cancelRequested ? h('span.muted#row-cancel-requested', {}, ' — cancel requested: it ends cancelled once this attempt is over, unless the attempt delivers') : null,
      row.status === 'dead' ? h('a.button.small', { href: `#/dead-letters/${row.id}` }, 'Open the dead letter') : null,
      cancellable ? h('button.danger.small#row-cancel', { type: 'button', onclick: cancel }, 'Cancel') : null),
    fields([
      ['Row', h('span.mono', {}, row.id)], ['App', h('span.mono', {}, row.appId)],
      ['Source kind', h('span.kind', {}, row.sourceKind)], ['Attempts', row.attemptCount],
      ['Trigger', row.triggerId && h('span.mono', {}, row.triggerId)],
      row.orderingKey && ['Ordering key', h('span.mono', {}, row.orderingKey)],
      ['Root execution', row.rootExecutionId && h('a.mono', { href: `#/rows/${row.rootExecutionId}` }, row.rootExecutionId)],
      ['Trigger depth', row.triggerDepth], ['Created', time(row.createdAt)],
      ['Next attempt', row.nextAttemptAt && time(row.nextAttemptAt)], ['Finished', row.finishedAt && time(row.finishedAt)],
      ['Node', row.node], ['Last error', row.lastError && h('span.error-text', {}, row.lastError)]]),
    h('h3', {}, 'Attempts'),
    r.attempts.length ? attemptsTable(r.attempts) : h('p.muted', {}, 'None has ended yet.'),
    h('h3', {}, 'Admin actions on this row'),
    r.audit.length ? auditTable(r.audit) : h('p.muted', {}, 'None.'));

  async function cancel() {
    if (!await confirmDialog('Cancel this row?', 'It is never delivered afterwards. A row in flight finishes its current attempt first; if that attempt delivers, the row stays delivered.', 'Cancel the row')) {
      return;
    }
    await attempt('Cancel', async () => {
      const now = await api.post(`outbox/${row.id}/cancel`);
      notice(now.status === 'cancelled' ? 'Row cancelled.' : 'Cancel requested: the row ends cancelled once its attempt is over, unless it delivers.');
      await refresh();
    });
  }
}

// ---- browse rows ----------------------------------------------------------------------------

const STATUSES = ['pending', 'scheduled', 'in_flight', 'held', 'delivered', 'dead', 'cancelled'];
const BROWSE = ['status', 'appId', 'triggerId', 'sourceKind', 'orderingKey', 'from', 'to'];

/** A datetime-local value (the browser's time zone) as RFC 3339 in UTC. */
function isoFromLocal(value) {
  const d = new Date(value);
  return !value || Number.isNaN(d.getTime()) ? value : d.toISOString();
}

function localFromIso(iso) {
  const d = new Date(iso);
  return !iso || Number.isNaN(d.getTime()) ? '' : new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
}

/** What the list's "at" is for this status filter. */
function atLabel(status) {
  return status === 'dead' ? 'Dead since' : FINAL.has(status) ? 'Finished' : 'Created';
}

function describe(filter, keys) {
  const names = { appId: 'app', triggerId: 'trigger', sourceKind: 'kind', orderingKey: 'ordering key', to: 'created before' };
  return keys.filter(k => filter[k]).map(k => `${names[k]} ${k === 'to' ? time(filter.to) : filter[k]}`).join(', ');
}

/** Why "Cancel matching…" is refused for this filter, or null when it is offered. */
function cancelRefusal(filter) {
  if (filter.status === 'dead') {
    return 'Dead rows are no longer in the outbox: replay or discard them instead.';
  }
  if (FINAL.has(filter.status)) {
    return 'Delivered and cancelled rows are finished: there is nothing to cancel.';
  }
  if (filter.status) {
    return 'A cancel takes every row of the filter still in the outbox, whatever its status: choose "in the outbox" first.';
  }
  if (filter.from) {
    return 'A cancel has no start time (only "created before", from To): clear From first.';
  }
  if (!['appId', 'triggerId', 'sourceKind', 'orderingKey', 'to'].some(k => filter[k])) {
    return 'Set a filter first (app, trigger, kind, ordering key or To): this page never cancels every row.';
  }
  return null;
}

function replayRefusal(filter) {
  if (filter.status !== 'dead') {
    return 'Only dead rows are replayed: choose the status dead.';
  }
  if (filter.from || filter.to) {
    return 'A replay filters by app, trigger, kind and ordering key only: clear From and To first.';
  }
  return null;
}

async function browseView(main, view) {
  const params = hashParams();
  const filter = Object.fromEntries(BROWSE.map(k => [k, params.get(k) || '']));
  const cursors = [null];
  const go = (hash) => {
    if (location.hash === hash) {
      route(); // the same hash fires no hashchange; Apply and Clear still start again from the first page
    } else {
      location.hash = hash;
    }
  };
  const form = h('form.filters', { 'aria-label': 'Filter rows' },
    h('label', {}, 'Status', h('select#rows-status', { name: 'status' },
      h('option', { value: '' }, 'in the outbox'),
      STATUSES.map(s => h('option', { value: s, selected: s === filter.status }, s.replace('_', ' '))))),
    h('label', {}, 'App id', h('input#rows-app', { name: 'appId', value: filter.appId, placeholder: 'any app', size: 38 })),
    h('label', {}, 'Trigger id', h('input#rows-trigger', { name: 'triggerId', value: filter.triggerId, placeholder: 'any trigger', size: 38 })),
    h('label', {}, 'Source kind', kindSelect('rows-kind', filter.sourceKind)),
    h('label', {}, 'Ordering key', h('input#rows-key', { name: 'orderingKey', value: filter.orderingKey, placeholder: 'any key' })),
    h('label', {}, 'From (local time)', h('input#rows-from', { name: 'from', type: 'datetime-local', step: 1, value: localFromIso(filter.from) })),
    h('label', {}, 'To (local time, excluded)', h('input#rows-to', { name: 'to', type: 'datetime-local', step: 1, value: localFromIso(filter.to) })),
    h('button.primary#rows-apply', { type: 'submit' }, 'Apply'),
    h('button#rows-clear', { type: 'button', onclick: () => go('#/browse') }, 'Clear'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    go(`#/browse${query({
      status: $('rows-status').value, appId: $('rows-app').value.trim(), triggerId: $('rows-trigger').value.trim(),
      sourceKind: $('rows-kind').value, orderingKey: $('rows-key').value.trim(),
      from: isoFromLocal($('rows-from').value), to: isoFromLocal($('rows-to').value),
    })}`);
  });
  const noCancel = cancelRefusal(filter);
  const noReplay = replayRefusal(filter);
  const list = h('div#rows-list');
  const pager = h('div.pager');
  main.replaceChildren(h('section.card', {},
    h('div.card-head', {}, h('h2', {}, 'Rows'),
      h('div.actions', {},
        h('button.danger-outline#rows-cancel', { type: 'button', disabled: !!noCancel, title: noCancel, onclick: cancelMatching }, 'Cancel matching…'),
        h('button.danger-outline#rows-replay', { type: 'button', disabled: !!noReplay, title: noReplay, onclick: replayMatching }, 'Replay matching…'))),
    h('p.muted', {}, 'Every row of the filter, newest first: rows in the outbox by creation, dead ones by when they died, delivered and cancelled ones by when they finished. Without a status: the rows still in the outbox. From and To bound that time.'),
    form, list, pager));

  async function load() {
    const page = await api.get(`admin/rows${query({ ...filter, limit: 50, cursor: cursors[cursors.length - 1] })}`);
    if (current !== view) {
      return;
    }
    list.replaceChildren(page.items.length ? browseTable(page.items, atLabel(filter.status))
      : h('p.empty', {}, cursors.length > 1 ? 'No more rows.' : 'No rows match.'));
    pager.replaceChildren(
      h('button#rows-newer', { type: 'button', disabled: cursors.length === 1, onclick: () => { cursors.pop(); attempt('Paging', load); } }, '← Newer'),
      h('span.muted', {}, `Page ${cursors.length}`),
      h('button#rows-older', { type: 'button', disabled: !page.nextCursor, onclick: () => { cursors.push(page.nextCursor); attempt('Paging', load); } }, 'Older →'));
    await refreshHeader();
  }

  async function cancelMatching() {
    const which = filter.status ? ` (not only ${filter.status.replace('_', ' ')} ones: a cancel has no status filter)` : '';
    if (!await confirmDialog('Cancel all matching?',
      `Cancels up to 10,000 outbox rows matching ${describe(filter, ['appId', 'triggerId', 'sourceKind', 'orderingKey', 'to'])}${which}: pending, scheduled and held ones are never delivered; one in flight finishes its attempt and ends cancelled unless that attempt delivers.`,
      'Cancel the rows')) {
      return;
    }
    await attempt('Bulk cancel', async () => {
      const { appId, triggerId, sourceKind, orderingKey, to } = filter;
      const body = Object.fromEntries(Object.entries({ appId, triggerId, sourceKind, orderingKey, olderThan: to }).filter(([, v]) => v));
      const done = await api.post('admin/outbox/cancel', body);
      notice(`${done.cancelled} row(s) cancelled, ${done.cancelRequested} in flight marked${done.more ? '; more remain: run again' : ''}.`);
      cursors.length = 1;
      await load();
    });
  }

  function replayMatching() {
    const { appId, triggerId, sourceKind, orderingKey } = filter;
    return bulkReplay(describe(filter, ['appId', 'triggerId', 'sourceKind', 'orderingKey']),
      { appId, triggerId, sourceKind, orderingKey },
      async () => { cursors.length = 1; await load(); });
  }

  view.refresh = load;
  await load();
}

// Replays, once the operator confirms, up to 1000 dead letters matching the filter's set fields (none set: all),
// described in words by `described`; then `reload`.
async function bulkReplay(described, filter, reload) {
  if (!await confirmDialog('Replay all matching?',
    `Puts up to 1000 dead letters matching ${described || 'every dead letter'} back into the outbox, due now, attempts reset.`, 'Replay')) {
    return;
  }
  await attempt('Bulk replay', async () => {
    const body = Object.fromEntries(Object.entries(filter).filter(([, v]) => v));
    if (!Object.keys(body).length) {
      body.all = true;
    }
    const done = await api.post('admin/dead-letters/replay', body);
    notice(`Replayed ${done.replayed} dead letter${done.replayed === 1 ? '' : 's'}${done.more ? '; more still match — replay again for the next 1000' : ''}.`);
    await reload();
  });
}

function browseTable(items, at) {
  return h('table#rows-table', {},
    h('thead', {}, h('tr', {}, ['Row', 'Status', 'App', 'Trigger', 'Kind', 'Attempts', 'Ordering key', 'Last error', at]
      .map(x => h(`th${x === 'Attempts' ? '.num' : ''}`, { scope: 'col' }, x)))),
    h('tbody', {}, items.map(r => h('tr', { dataset: { id: r.id } },
      h('td', {}, h('a.mono', { href: `#/rows/${r.id}`, title: r.id }, shortId(r.id))),
      h('td', {}, h(`span.badge.status-${r.status}`, {}, r.status.replace('_', ' '))),
      h('td.mono', { title: r.appId }, shortId(r.appId)),
      h('td.mono', { title: r.triggerId || '' }, r.triggerId ? shortId(r.triggerId) : '—'),
      h('td', {}, h('span.kind', {}, r.sourceKind)),
      h('td.num', {}, r.attemptCount),
      h('td.mono', {}, r.orderingKey ?? ''),
      h('td.error-cell', { title: r.lastError ?? '' }, r.lastError ?? ''),
      h('td', { title: time(r.at) }, ago(r.at))))));
}

// ---- triggers -------------------------------------------------------------------------------

async function triggersView(main, view) {
  const params = hashParams();
  const filter = { appId: params.get('appId') || '', sourceKind: params.get('sourceKind') || '' };
  const cursors = [null];
  const list = h('div#trigger-list');
  const pager = h('div.pager');
  const filterForm = h('form.filters', { 'aria-label': 'Filter triggers' },
    h('label', {}, 'App id', h('input#tr-app', { value: filter.appId, placeholder: 'any app', size: 38 })),
    h('label', {}, 'Source kind', kindSelect('tr-kind', filter.sourceKind)),
    h('button.primary', { type: 'submit' }, 'Apply'),
    h('button', { type: 'button', onclick: () => { location.hash = '#/triggers'; } }, 'Clear'));
  filterForm.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/triggers${query({ appId: $('tr-app').value.trim(), sourceKind: $('tr-kind').value })}`;
  });
  main.replaceChildren(
    h('section.card', {}, h('div.card-head', {}, h('h2', {}, 'Triggers')), filterForm, list, pager),
    appHoldsCard(view),
    createTriggerCard(() => { cursors.length = 1; return load(); }));

  async function load() {
    const page = await api.get(`admin/triggers${query({ ...filter, limit: 25, cursor: cursors[cursors.length - 1] })}`);
    if (current !== view) {
      return;
    }
    list.replaceChildren(page.items.length ? triggerTable(page.items, load) : h('p.empty', {}, 'No triggers.'));
    pager.replaceChildren(
      h('button', { type: 'button', disabled: cursors.length === 1, onclick: () => { cursors.pop(); attempt('Paging', load); } }, '← Newer'),
      h('span.muted', {}, `Page ${cursors.length}`),
      h('button', { type: 'button', disabled: !page.nextCursor, onclick: () => { cursors.push(page.nextCursor); attempt('Paging', load); } }, 'Older →'));
  }
  await load();
}

function triggerTable(items, reload) {
  const definition = (t, enabled) => {
    const body = { ...t, enabled };
    ['id', 'appId', 'createdAt', 'updatedAt', 'secret', 'nextFireAt', 'lastFiredAt', 'previousSecretExpiresAt', 'held']
      .forEach(k => delete body[k]);
    return body;
  };
  const hold = async (t) => attempt(t.held ? 'Release trigger' : 'Hold trigger', async () => {
    await api.post(`apps/${t.appId}/triggers/${t.id}/${t.held ? 'release' : 'hold'}`);
    notice(t.held ? `Trigger ${shortId(t.id)} released: its held rows come due in their order.`
      : `Trigger ${shortId(t.id)} on hold: its rows wait, unclaimed.`);
    await reload();
  });
  const discard = async (t) => {
    if (!await confirmDialog('Discard the pending rows?', `Every row of trigger ${shortId(t.id)} still in the outbox (held, pending or scheduled) is cancelled and never delivered; a row being delivered right now finishes its attempt.`, 'Discard pending')) {
      return;
    }
    await attempt('Discard pending', async () => {
      const done = await api.post('admin/outbox/cancel', { triggerId: t.id });
      notice(`${done.cancelled} row(s) cancelled${done.cancelRequested ? `, ${done.cancelRequested} in flight marked` : ''}${done.more ? '; more remain: discard again' : ''}.`);
      await reload();
    });
  };
  const toggle = async (t) => attempt(t.enabled ? 'Disable trigger' : 'Enable trigger', async () => {
    await api.put(`apps/${t.appId}/triggers/${t.id}`, definition(t, !t.enabled));
    notice(`Trigger ${shortId(t.id)} ${t.enabled ? 'disabled' : 'enabled'}.`);
    await reload();
  });
  const remove = async (t) => {
    if (!await confirmDialog('Delete this trigger?', `Events of kind ${t.sourceKind} for app ${t.appId} no longer go to ${t.target[TARGET_FIELD[t.target.type]]}.`, 'Delete')) {
      return;
    }
    await attempt('Delete trigger', async () => {
      await api.del(`apps/${t.appId}/triggers/${t.id}`);
      notice(`Trigger ${shortId(t.id)} deleted.`);
      await reload();
    });
  };
  return h('table#triggers-table', {},
    h('thead', {}, h('tr', {}, ['Trigger', 'App', 'Kind', 'Target', 'Max attempts', 'Last hour', 'State', ''].map(x => h(`th${x === 'Max attempts' ? '.num' : ''}`, { scope: 'col' }, x)))),
    h('tbody', {}, items.map(t => h('tr', { 'data-trigger': t.id },
      h('td.mono', { title: t.id }, shortId(t.id)),
      h('td.mono', { title: t.appId }, shortId(t.appId)),
      h('td', {}, h('span.kind', {}, t.sourceKind)),
      h('td.target', {}, h('span.badge', {}, t.target.type), ' ', t.target[TARGET_FIELD[t.target.type]] || '',
        t.target.key ? ` (key: ${t.target.key})` : ''),
      h('td.num', {}, t.maxAttempts ?? 'default'),
      h('td.last-hour', {}, lastHour(t.lastHour)),
      h('td', {}, h(`span.badge.${t.enabled ? 'good' : 'muted'}`, {}, t.enabled ? 'enabled' : 'disabled'),
        t.circuit && t.circuit !== 'closed' ? [' ', h('span.badge.bad', { title: 'This node sends nothing to the origin until a probe reaches it (each node keeps its own circuit)' }, `circuit ${t.circuit.replace('_', '-')}`)] : '',
        t.held ? [' ', h('span.badge.warn', {}, 'held')] : '',
        t.onDeadLetter === 'block' ? [' ', h('span.badge', { title: 'An ordered lane whose head dead-letters waits until skipped or retried (Dead letters: Stuck lanes)' }, 'on dead letter: block')] : ''),
      h('td.actions', {},
        h('button.small', { type: 'button', onclick: () => toggle(t) }, t.enabled ? 'Disable' : 'Enable'),
        h('button.small.hold', { type: 'button', onclick: () => hold(t) }, t.held ? 'Release' : 'Hold'),
        h('button.small.discard', { type: 'button', onclick: () => discard(t) }, 'Discard pending'),
        h('button.small.danger-outline', { type: 'button', onclick: () => remove(t) }, 'Delete'))))));
}

// A trigger's last hour (GET /admin/triggers): delivered and dead rows, and how long its delivering attempts took.
function lastHour(hour) {
  if (!hour) {
    return '';
  }
  const took = hour.p50Ms == null ? '' : ` · p50 ${hour.p50Ms} ms, p99 ${hour.p99Ms} ms`;
  return `${hour.delivered} delivered, ${hour.dead} dead${took}`;
}

// Apps on hold: none of their rows is claimed until released (POST /admin/apps/{appId}/hold, …/release).
function appHoldsCard(view) {
  const list = h('div#app-holds');
  const form = h('form.filters', { 'aria-label': 'Hold an app' },
    h('label', {}, 'App id', h('input#hold-app', { required: true, placeholder: 'app id', size: 38 })),
    h('button.primary', { type: 'submit' }, 'Hold app'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    attempt('Hold app', async () => {
      const app = $('hold-app').value.trim();
      await api.post(`admin/apps/${encodeURIComponent(app)}/hold`);
      notice(`App ${shortId(app)} on hold: its rows wait, unclaimed.`);
      await load();
    });
  });
  const release = (app) => attempt('Release app', async () => {
    const done = await api.post(`admin/apps/${app}/release`);
    notice(`App ${shortId(app)} released: ${done.releasedRows} held row(s) come due in their order.`);
    await load();
  });
  async function load() {
    const holds = await api.get('admin/holds');
    if (current !== view) {
      return;
    }
    list.replaceChildren(holds.apps.length
      ? h('table#app-holds-table', {},
        h('thead', {}, h('tr', {}, ['App', 'Since', 'By', ''].map(x => h('th', { scope: 'col' }, x)))),
        h('tbody', {}, holds.apps.map(a => h('tr', {},
          h('td.mono', { title: a.appId }, a.appId),
          h('td', {}, a.heldAt),
          h('td', {}, a.heldBy ?? ''),
          h('td.actions', {}, h('button.small', { type: 'button', onclick: () => release(a.appId) }, 'Release'))))))
      : h('p.empty', {}, 'No app is on hold.'));
  }
  attempt('Loading holds', load);
  return h('section.card', {}, h('div.card-head', {}, h('h2', {}, 'Apps on hold'),
    h('span.muted', {}, 'Held rows stay, spend no attempt and never dead-letter; release delivers them in their order.')), form, list);
}

function createTriggerCard(reload) {
  const targetLabel = h('span', {}, 'Webhook URL');
  const type = h('select#new-type', { required: true },
    h('option', { value: 'webhook' }, 'webhook'), h('option', { value: 'handler' }, 'handler'), h('option', { value: 'jms' }, 'jms'),
    h('option', { value: 'kafka' }, 'kafka'));
  const target = h('input#new-target', { required: true, size: 40, placeholder: 'https://example.com/hook' });
  type.addEventListener('change', () => {
    targetLabel.textContent = { webhook: 'Webhook URL', handler: 'Handler name', jms: 'JMS destination', kafka: 'Kafka topic' }[type.value];
    target.placeholder = { webhook: 'https://example.com/hook', handler: 'CDI bean name', jms: 'queue or topic', kafka: 'topic name' }[type.value];
  });
  const form = h('form.grid-form#new-trigger', { 'aria-label': 'New trigger' },
    h('label', {}, 'App id', h('input#new-app', { required: true, size: 38, placeholder: 'UUID' })),
    h('label', {}, 'Source kind', h('select#new-kind', { required: true }, KINDS.map(k => h('option', { value: k }, k)))),
    h('label', {}, 'Target type', type),
    h('label', {}, targetLabel, target),
    h('label', {}, 'Max attempts', h('input#new-max', { type: 'number', min: 1, max: 1000, placeholder: 'default' })),
    h('label.check', {}, h('input#new-enabled', { type: 'checkbox', checked: true }), ' Enabled'),
    h('div.actions', {}, h('button.primary', { type: 'submit' }, 'Create trigger')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {
      sourceKind: $('new-kind').value,
      target: { type: type.value, [TARGET_FIELD[type.value]]: target.value.trim() },
      enabled: $('new-enabled').checked,
    };
    if ($('new-max').value) {
      body.maxAttempts = Number($('new-max').value);
    }
    await attempt('Create trigger', async () => {
      const t = await api.post(`apps/${encodeURIComponent($('new-app').value.trim())}/triggers`, body);
      notice(t.secret ? `Trigger ${shortId(t.id)} created. Its webhook signing secret, shown only now: ${t.secret}`
        : `Trigger ${shortId(t.id)} created.`);
      target.value = '';
      await reload();
    });
  });
  return h('section.card', {}, h('h2', {}, 'New trigger'), form);
}

// ---- audit ----------------------------------------------------------------------------------

function auditTable(items) {
  return h('table#audit-table', {},
    h('thead', {}, h('tr', {}, ['When', 'Who', 'Action', 'Targets', 'Filter', 'Affected'].map(x => h(`th${x === 'Affected' ? '.num' : ''}`, { scope: 'col' }, x)))),
    h('tbody', {}, items.map(a => h('tr', {},
      h('td', { title: time(a.at) }, ago(a.at)),
      h('td', {}, a.principal),
      h('td', {}, h('span.badge', {}, a.action)),
      h('td.mono', {}, a.targetIds.slice(0, 3).map(id => [h('a', { href: a.action.startsWith('trigger') ? '#/triggers' : `#/rows/${id}`, title: id }, shortId(id)), ' ']),
        a.targetIds.length > 3 ? `+${a.targetIds.length - 3} more` : ''),
      h('td.mono', {}, a.filter ? JSON.stringify(a.filter) : ''),
      h('td.num', {}, a.affected)))));
}

async function auditView(main, view) {
  const cursors = [null];
  const list = h('div#audit-list');
  const pager = h('div.pager');
  main.replaceChildren(h('section.card', {}, h('div.card-head', {}, h('h2', {}, 'Audit'),
    h('span.muted', {}, 'Every admin action: who, when, what, on which rows or triggers.')), list, pager));
  async function load() {
    const page = await api.get(`admin/audit${query({ limit: 50, cursor: cursors[cursors.length - 1] })}`);
    if (current !== view) {
      return;
    }
    list.replaceChildren(page.items.length ? auditTable(page.items) : h('p.empty', {}, 'No admin action yet.'));
    pager.replaceChildren(
      h('button', { type: 'button', disabled: cursors.length === 1, onclick: () => { cursors.pop(); attempt('Paging', load); } }, '← Newer'),
      h('span.muted', {}, `Page ${cursors.length}`),
      h('button', { type: 'button', disabled: !page.nextCursor, onclick: () => { cursors.push(page.nextCursor); attempt('Paging', load); } }, 'Older →'));
  }
  view.refresh = async () => {
    if (cursors.length === 1) {
      await load();
    }
  };
  await load();
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
