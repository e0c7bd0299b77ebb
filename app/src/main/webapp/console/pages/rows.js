// Find a row (#/rows[/id]): where one outbox row stands, its attempts, its admin actions and the
// cascade it belongs to, refreshed until it is finished; cancel it.

import { api } from '../api.js';
import { $, h, time } from '../dom.js';
import { attempt, notice, confirmDialog, isCurrent, refreshHeader } from '../shell.js';
import { FINAL, fields, auditTable } from '../parts.js';

/** Rows a cancel still reaches (one in flight ends cancelled unless its attempt delivers). */
const CANCELLABLE = new Set(['pending', 'scheduled', 'held', 'in_flight']);

export async function rowsView(main, view) {
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
    if (!isCurrent(view)) {
      return;
    }
    last = r.row.status;
    const cascade = r.row.rootExecutionId ? await lineage(r.row.rootExecutionId, r.row.id) : null;
    if (!isCurrent(view)) {
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
