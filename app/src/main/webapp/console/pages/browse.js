// Rows (#/browse): every row of a filter, by status, newest first, in pages; cancel or replay
// what matches.

import { api, query } from '../api.js';
import { $, h, ago, time, shortId } from '../dom.js';
import { attempt, notice, confirmDialog, isCurrent, refreshHeader } from '../shell.js';
import { FINAL, kindSelect, hashParams, bulkReplay, pageButtons } from '../parts.js';

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

export async function browseView(main, view) {
  const params = hashParams();
  const filter = Object.fromEntries(BROWSE.map(k => [k, params.get(k) || '']));
  const cursors = [null];
  const go = (hash) => {
    if (location.hash === hash) {
      // the same hash fires no hashchange of its own; Apply and Clear still start again from the first page
      window.dispatchEvent(new HashChangeEvent('hashchange'));
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
    if (!isCurrent(view)) {
      return;
    }
    list.replaceChildren(page.items.length ? browseTable(page.items, atLabel(filter.status))
      : h('p.empty', {}, cursors.length > 1 ? 'No more rows.' : 'No rows match.'));
    pager.replaceChildren(...pageButtons(cursors, page.nextCursor, load, { newer: 'rows-newer', older: 'rows-older' }));
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
