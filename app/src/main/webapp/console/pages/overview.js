// Overview (#/overview): the totals, the activity chart, the breakdowns by source kind and by app,
// and the dispatcher nodes, refreshed with the page.

import { api } from '../api.js';
import { $, h, ago, time, duration, shortId } from '../dom.js';
import { drawActivity } from '../chart.js';
import { isCurrent, refreshHeader } from '../shell.js';

function card(id, label, value, hint, tone) {
  return h(`div.stat${tone ? `.${tone}` : ''}`, {},
    h('div.stat-label', {}, label),
    h('div.stat-value', { id }, value),
    hint ? h('div.stat-hint', {}, hint) : null);
}

export async function overviewView(main, view) {
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
    if (!isCurrent(view)) {
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
      h('td', {}, h(`span.badge.${n.status === 'alive' ? (n.paused ? 'warn' : 'good') : n.status === 'stopped' ? 'muted' : 'bad'}`, {},
        n.status === 'alive' ? (n.paused ? 'paused' : 'alive') : n.status)),
      h('td', { title: time(n.lastTickAt) }, `${duration(n.lastTickAgeSeconds)} ago`),
      h('td.num', {}, n.inFlight.toLocaleString()),
      h('td', { title: time(n.startedAt) }, ago(n.startedAt))))));
}
