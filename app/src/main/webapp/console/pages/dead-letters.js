// Dead letters (#/dead-letters[/id]): the failures grouped, the stuck ordered lanes and the filtered
// list, each with its replay or discard; one dead letter's page.

import { api, query } from '../api.js';
import { $, h, ago, time, shortId, pretty } from '../dom.js';
import { attempt, notice, confirmDialog, isCurrent, refreshHeader } from '../shell.js';
import { kindSelect, hashParams, fields, bulkReplay, pageButtons } from '../parts.js';

export async function deadLettersView(main, view) {
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
    if (!isCurrent(view)) {
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
    if (!isCurrent(view)) {
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
    if (!isCurrent(view)) {
      return;
    }
    await loadGroups();
    await loadLanes();
    list.replaceChildren(page.items.length ? deadLetterTable(page.items)
      : h('p.empty', {}, cursors.length > 1 ? 'No more dead letters.' : 'No dead letters match. 🎉'));
    pager.replaceChildren(...pageButtons(cursors, page.nextCursor, load, { older: 'dl-older' }));
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
