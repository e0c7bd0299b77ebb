// Pieces more than one page shows: the source kind select and the hash's filter (dead letters,
// triggers, rows), a paged list's buttons, a record's fields (a dead letter, a row), the audit table
// (audit, a row), the bulk replay (dead letters, rows).

import { api } from './api.js';
import { h, ago, time, shortId } from './dom.js';
import { attempt, notice, confirmDialog } from './shell.js';

export const KINDS = ['http', 'kv', 'docs', 'dead_letter', 'cron', 'files', 'pubsub', 'email', 'invoke'];
/** A row's final statuses: its page stops asking, the Rows page lists it by when it finished. */
export const FINAL = new Set(['delivered', 'cancelled']);

export function kindSelect(id, value) {
  return h('select', { id, name: 'sourceKind' }, h('option', { value: '' }, 'any kind'),
    KINDS.map(k => h('option', { value: k, selected: k === value }, k)));
}

export function hashParams() {
  const q = location.hash.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : location.hash.slice(q + 1));
}

/** A paged list's buttons: `cursors` holds the cursor of each page shown so far (the first page's null), `load` shows the last. */
export function pageButtons(cursors, nextCursor, load, ids = {}) {
  return [
    h(`button${ids.newer ? `#${ids.newer}` : ''}`, { type: 'button', disabled: cursors.length === 1, onclick: () => { cursors.pop(); attempt('Paging', load); } }, '← Newer'),
    h('span.muted', {}, `Page ${cursors.length}`),
    h(`button${ids.older ? `#${ids.older}` : ''}`, { type: 'button', disabled: !nextCursor, onclick: () => { cursors.push(nextCursor); attempt('Paging', load); } }, 'Older →'),
  ];
}

export function fields(pairs) {
  return h('dl.fields', {}, pairs.filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v === null || v === undefined ? '—' : v)]));
}

export function auditTable(items) {
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

// Replays, once the operator confirms, up to 1000 dead letters matching the filter's set fields (none set: all),
// described in words by `described`; then `reload`.
export async function bulkReplay(described, filter, reload) {
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
