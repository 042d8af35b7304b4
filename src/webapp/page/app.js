// telemem's Mini App page: shows and changes what the bot remembers about the person who opened
// it, their settings and usage, and (for admins) everyone's usage and access. It proves who that
// person is by sending Telegram's init data with every API call (`Authorization: tma ...`), and
// builds every element with createElement/textContent (the CSP allows no inline code, and data is
// never parsed as HTML). Every sentence comes from `strings` in /app/api/me.
'use strict';

/** The one sentence shown before the strings are loaded (or when they never will be). */
const OPEN_FROM_TELEGRAM = 'Open this page from the bot in Telegram.';
const ZONES = ['UTC', 'Europe/London', 'Europe/Berlin', 'Europe/Paris', 'Europe/Madrid',
  'Europe/Moscow', 'America/New_York', 'America/Chicago', 'America/Los_Angeles',
  'America/Sao_Paulo', 'Asia/Kolkata', 'Asia/Shanghai', 'Asia/Tokyo', 'Australia/Sydney'];

const state = {
  initData: '',
  me: null,
  strings: {},
  chat: null,
  // The view a button opened the app at (`?view=settings` under /settings), else the memory.
  view: new URLSearchParams(location.search).get('view') || 'memory',
  loaded: new Set(),
  notesShown: false,
  firstMemory: null,
  formats: null,
  settings: null,
};

class Unauthorized extends Error {}

const $ = (selector) => document.querySelector(selector);
const t = (id) => state.strings[id] ?? id;
/** The sentence `app-<prefix>-<value>`, or the value itself where there is none. */
const tOf = (prefix, value) => state.strings[`app-${prefix}-${value}`] ?? value;

/** An element: `props` sets its class, text, data-*, listeners (on...) and attributes. */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'data') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

/** A button of class `cls` saying sentence `id`, doing `onclick`. */
const button = (cls, id, onclick) => el('button', { type: 'button', class: cls, text: t(id), onclick });

function svg(tag, attributes = {}) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

// --- Telegram's launch parameters -----------------------------------------------------------

function launchParams() {
  return new URLSearchParams(location.hash.slice(1));
}

function readInitData() {
  const fromTelegram = window.Telegram?.WebApp?.initData;
  if (fromTelegram) return fromTelegram;
  return launchParams().get('tgWebAppData') || '';
}

function applyTheme() {
  let theme = window.Telegram?.WebApp?.themeParams;
  if (!theme || Object.keys(theme).length === 0) {
    try {
      theme = JSON.parse(launchParams().get('tgWebAppThemeParams') || '{}');
    } catch {
      theme = {};
    }
  }
  const style = document.documentElement.style;
  for (const [key, value] of Object.entries(theme || {})) {
    if (typeof value === 'string' && /^#[0-9a-fA-F]{3,8}$/.test(value)) {
      style.setProperty(`--tg-theme-${key.replace(/_/g, '-')}`, value);
    }
  }
}

// --- The API ---------------------------------------------------------------------------------

async function api(path, { method = 'GET', body, raw = false } = {}) {
  const headers = { Authorization: `tma ${state.initData}` };
  const init = { method, headers, cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`api/${path}`, init);
  if (response.status === 401) throw new Unauthorized();
  if (!response.ok) {
    let message = t(response.status === 403 ? 'app-forbidden' : 'app-error');
    try {
      const body = await response.json();
      message = (response.status === 403 ? body.message : body.error) || message;
    } catch { /* not JSON: the general sentence */ }
    throw new Error(message);
  }
  if (raw) return response;
  return response.status === 204 ? null : response.json();
}

const chatQuery = () => `chat=${encodeURIComponent(state.chat)}`;

// --- Messages to the person ------------------------------------------------------------------

function showUnauthorized() {
  const notice = $('#notice');
  notice.textContent = state.strings['app-open-from-telegram'] || OPEN_FROM_TELEGRAM;
  notice.hidden = false;
  $('#top').hidden = true;
  $('#status').hidden = true;
  for (const view of document.querySelectorAll('.view')) view.hidden = true;
}

function showStatus(text) {
  const status = $('#status');
  status.textContent = text;
  status.hidden = !text;
}

/** Reports a failed action: the open-from-Telegram notice for bad init data, else a sentence. */
function fail(error, line = null) {
  if (error instanceof Unauthorized) {
    showUnauthorized();
    return;
  }
  console.error(error);
  const message = error instanceof TypeError ? t('app-error') : error.message;
  if (line) line.textContent = message;
  else showStatus(message);
}

// --- Dates and numbers -----------------------------------------------------------------------

function makeFormats(lang, zone) {
  const shape = { dateStyle: 'medium', timeStyle: 'short' };
  let dateTime;
  try {
    dateTime = new Intl.DateTimeFormat(lang, { ...shape, timeZone: zone });
  } catch {
    dateTime = new Intl.DateTimeFormat(lang, shape);
  }
  return {
    dateTime,
    // Usage is counted per UTC day: its labels are read in UTC.
    day: new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', timeZone: 'UTC' }),
    number: new Intl.NumberFormat(lang),
  };
}

const when = (ms) => (ms === null || ms === undefined ? '' : state.formats.dateTime.format(new Date(ms)));
const number = (n) => state.formats.number.format(n);

// --- Start -----------------------------------------------------------------------------------

/**
 * Tells the Telegram client hosting the page about it, the way Telegram's own script does (that
 * script is not loaded: the policy runs only this server's): the mobile apps' proxy, the desktop
 * app's notify, or a message to Telegram's web client framing the page. Outside Telegram, nothing.
 */
function tellTelegram(eventType, eventData = {}) {
  try {
    if (window.TelegramWebviewProxy?.postEvent) {
      window.TelegramWebviewProxy.postEvent(eventType, JSON.stringify(eventData));
    } else if (window.external && 'notify' in window.external) {
      window.external.notify(JSON.stringify({ eventType, eventData }));
    } else if (window.parent !== window) {
      window.parent.postMessage(JSON.stringify({ eventType, eventData }), 'https://web.telegram.org');
    }
  } catch { /* not in Telegram: nothing to tell */ }
}

async function start() {
  applyTheme();
  if (window.Telegram?.WebApp) {
    window.Telegram.WebApp.ready?.();
    window.Telegram.WebApp.expand?.();
  } else {
    // Ready to be shown, and as tall as the screen allows.
    tellTelegram('web_app_ready');
    tellTelegram('web_app_expand');
  }
  state.initData = readInitData();
  if (!state.initData) {
    showUnauthorized();
    return;
  }
  // Opening at the memory, the private chat's memory is asked for beside `me`: the notes show
  // one round trip sooner.
  state.firstMemory = state.view === 'memory' ? api('memory').catch(() => null) : null;
  try {
    state.me = await api('me');
  } catch (error) {
    if (error instanceof Unauthorized) showUnauthorized();
    else showStatus(error.message || OPEN_FROM_TELEGRAM);
    return;
  }
  state.strings = state.me.strings || {};
  state.formats = makeFormats(state.me.lang, state.me.time_zone);
  applyStrings();
  buildChrome();
  openView(state.view);
}

function applyStrings() {
  document.documentElement.lang = state.me.lang;
  document.title = t('app-title');
  for (const node of document.querySelectorAll('[data-s]')) node.textContent = t(node.dataset.s);
  for (const node of document.querySelectorAll('[data-s-placeholder]')) {
    node.placeholder = t(node.dataset.sPlaceholder);
  }
}

function buildChrome() {
  if (!state.me.is_admin) {
    $('#tab-admin').remove();
    $('#view-admin').remove();
  }
  for (const tab of document.querySelectorAll('#tabs button')) {
    tab.addEventListener('click', () => openView(tab.dataset.view));
  }
  buildChatSelect();
  $('#zones').append(...ZONES.map((zone) => el('option', { value: zone })));
  $('#note-add').addEventListener('click', addNote);
  $('#search-go').addEventListener('click', search);
  $('#search-q').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') search();
  });
  $('#settings-save').addEventListener('click', saveSettings);
  $('#export-json').addEventListener('click', () => download('json'));
  $('#export-markdown').addEventListener('click', () => download('markdown'));
  $('#top').hidden = false;
  if (!document.querySelector(`#tabs button[data-view="${CSS.escape(state.view)}"]`)) {
    state.view = 'memory';
  }
}

function buildChatSelect() {
  const chats = [...state.me.chats].sort((a, b) => Number(b.private) - Number(a.private));
  const select = $('#chat');
  const groups = [['app-private-chat', true], ['app-group-chat', false]];
  for (const [label, isPrivate] of groups) {
    const these = chats.filter((chat) => chat.private === isPrivate);
    if (these.length === 0) continue;
    const group = el('optgroup', { label: t(label) });
    group.append(...these.map((chat) => el('option', { value: chat.chat_id, text: chat.title })));
    select.append(group);
  }
  state.chat = chats.length > 0 ? chats[0].chat_id : state.me.user_id;
  select.value = String(state.chat);
  select.addEventListener('change', () => {
    state.chat = select.value;
    state.loaded.clear();
    $('#search-results').replaceChildren();
    $('#search-empty').hidden = true;
    openView(state.view);
  });
}

const LOADERS = { memory: loadMemory, search: () => {}, settings: loadSettings, usage: loadUsage, admin: loadAdmin };
const CHAT_VIEWS = new Set(['memory', 'search', 'settings']);

function openView(name) {
  state.view = name;
  showStatus('');
  for (const tab of document.querySelectorAll('#tabs button')) {
    tab.setAttribute('aria-selected', String(tab.dataset.view === name));
  }
  for (const view of document.querySelectorAll('.view')) view.hidden = view.id !== `view-${name}`;
  $('#chat-row').hidden = !CHAT_VIEWS.has(name);
  if (!state.loaded.has(name)) {
    state.loaded.add(name);
    LOADERS[name]();
  }
}

// --- Memory ----------------------------------------------------------------------------------

async function loadMemory() {
  try {
    const first = state.firstMemory;
    state.firstMemory = null;
    const chat = String(state.chat);
    const isPrivate = chat === String(state.me.user_id);
    const memory = (first && isPrivate && (await first)) || (await api(`memory?${chatQuery()}`));
    // Another chat was chosen while this one's memory was on its way: that one's answer counts.
    if (String(state.chat) !== chat) return;
    renderNotes(memory.notes);
    renderSummaries(memory.summaries);
  } catch (error) {
    fail(error);
  }
}

function renderNotes(notes) {
  $('#notes').replaceChildren(...notes.map(noteItem));
  $('#notes-empty').hidden = notes.length > 0;
  if (!state.notesShown) {
    state.notesShown = true;
    performance.mark('notes-shown');
  }
}

function noteItem(note) {
  const item = el('li', { class: 'note', data: { id: note.id } });
  const text = el('p', { class: 'note-text', text: note.text });
  const meta = el('p', { class: 'meta', text: `${t('app-since')} ${when(note.since_ms)}` });
  const actions = el('div', { class: 'actions' },
    button('note-edit', 'app-edit', () => editNote(item, note)),
    button('note-remove danger', 'app-remove', () => removeFromMemory(`notes/${note.id}`)));
  item.append(text, meta);
  if (note.earlier && note.earlier.length > 0) item.append(earlierList(note.earlier));
  item.append(actions);
  return item;
}

function earlierList(earlier) {
  const list = el('ul', { class: 'earlier' });
  for (const old of earlier) {
    list.append(el('li', {}, el('span', { text: old.text }), ' ',
      el('span', { class: 'meta', text: `(${t('app-until')} ${when(old.until_ms)})` })));
  }
  return el('details', {}, el('summary', { text: t('app-earlier') }), list);
}

function editNote(item, note) {
  const editor = el('textarea', { class: 'note-editor', rows: 3, maxlength: 2000 });
  editor.value = note.text;
  const line = el('p', { class: 'status-line' });
  const save = button('note-save primary', 'app-save');
  const cancel = button('note-cancel', 'app-cancel', () => item.replaceWith(noteItem(note)));
  save.addEventListener('click', async () => {
    save.disabled = true;
    try {
      await api(`notes/${note.id}?${chatQuery()}`, { method: 'PUT', body: { text: editor.value } });
      await loadMemory();
    } catch (error) {
      save.disabled = false;
      fail(error, line);
    }
  });
  item.replaceChildren(editor, line, el('div', { class: 'actions' }, save, cancel));
  editor.focus();
}

/** Removes one note or summary (`notes/5`, `summaries/7`), then shows the memory as it is now. */
async function removeFromMemory(path) {
  try {
    await api(`${path}?${chatQuery()}`, { method: 'DELETE' });
    await loadMemory();
  } catch (error) {
    fail(error);
  }
}

async function addNote() {
  const input = $('#note-add-text');
  if (!input.value.trim()) return;
  try {
    await api(`notes?${chatQuery()}`, { method: 'POST', body: { text: input.value } });
    input.value = '';
    await loadMemory();
  } catch (error) {
    fail(error);
  }
}

function renderSummaries(summaries) {
  $('#summaries').replaceChildren(...summaries.map((summary) => {
    const actions = el('div', { class: 'actions' });
    const item = el('li', { class: 'summary', data: { id: summary.id } },
      el('p', { class: 'meta', text: `${when(summary.started_ms)} – ${when(summary.ended_ms)}` }),
      el('p', { class: 'summary-text', text: summary.text }),
      actions);
    const offer = () => actions.replaceChildren(
      button('summary-remove danger', 'app-remove', () => askToRemove(actions, summary, offer)));
    offer();
    return item;
  }));
  $('#summaries-empty').hidden = summaries.length > 0;
}

/** Asks in the page itself, not with `confirm()`, which Telegram's in-app browsers may not show. */
function askToRemove(actions, summary, offer) {
  actions.replaceChildren(
    el('p', { class: 'confirm-question', text: t('app-confirm-remove-summary') }),
    button('summary-remove-confirm danger', 'app-remove', () => removeFromMemory(`summaries/${summary.id}`)),
    button('summary-remove-cancel', 'app-cancel', offer));
}

// --- Search ----------------------------------------------------------------------------------

async function search() {
  const q = $('#search-q').value.trim();
  if (!q) return;
  try {
    const found = await api(`search?${chatQuery()}&q=${encodeURIComponent(q)}`);
    $('#search-results').replaceChildren(...found.results.map((result) => {
      const kind = tOf('kind', result.kind);
      const role = result.role ? ` · ${tOf('role', result.role)}` : '';
      return el('li', { class: `result ${result.kind}` },
        el('p', { class: 'meta', text: `${kind}${role} · ${when(result.at_ms)}` }),
        el('p', { class: 'result-text', text: result.text }));
    }));
    $('#search-empty').hidden = found.results.length > 0;
  } catch (error) {
    fail(error);
  }
}

// --- Settings --------------------------------------------------------------------------------

async function loadSettings() {
  try {
    fillSettings(await api(`settings?${chatQuery()}`));
  } catch (error) {
    fail(error);
  }
}

function fillSettings(settings) {
  state.settings = settings;
  $('#settings-persona').value = settings.persona || '';
  const models = settings.models.includes(settings.model) ? settings.models : [settings.model, ...settings.models];
  $('#settings-model').replaceChildren(...models.map((model) => el('option', { value: model, text: model })));
  $('#settings-model').value = settings.model;
  $('#settings-incognito').checked = settings.incognito;
  $('#settings-time-zone').value = settings.time_zone || '';
  $('#settings-time-zone').placeholder = settings.default_time_zone;
}

/** Sends what the person changed, and only that: a model left alone stays the default. */
async function saveSettings() {
  const line = $('#settings-status');
  line.textContent = '';
  const before = state.settings;
  // The settings never loaded (the failure was shown then): nothing to compare with.
  if (!before) return loadSettings();
  const persona = $('#settings-persona').value.trim() || null;
  const model = $('#settings-model').value;
  const incognito = $('#settings-incognito').checked;
  const zone = $('#settings-time-zone').value.trim() || null;
  const change = {};
  if (persona !== (before.persona || null)) change.persona = persona;
  if (model !== before.model) change.model = model;
  if (incognito !== before.incognito) change.incognito = incognito;
  if (zone !== (before.time_zone || null)) change.time_zone = zone;
  try {
    const saved = await api(`settings?${chatQuery()}`, { method: 'PUT', body: change });
    fillSettings(saved);
    if ('time_zone' in change) {
      state.formats = makeFormats(state.me.lang, saved.time_zone || saved.default_time_zone);
      state.loaded.delete('memory');
    }
    line.textContent = t('app-saved');
  } catch (error) {
    fail(error, line);
  }
}

/** Fetches an export with the init data (a plain link cannot carry it) and saves it. */
/** Whether a Telegram app hosts the page (it names its platform); not in a plain browser tab. */
function inTelegram() {
  const platform = window.Telegram?.WebApp?.platform || launchParams().get('tgWebAppPlatform');
  return Boolean(platform && platform !== 'unknown');
}

async function download(format) {
  if (inTelegram()) return sendToChat(format);
  try {
    const response = await api(`export?${chatQuery()}&format=${format}`, { raw: true });
    const blob = await response.blob();
    const disposition = response.headers.get('Content-Disposition') || '';
    const named = /filename="?([^";]+)"?/.exec(disposition);
    const name = named ? named[1] : `telemem.${format === 'json' ? 'json' : 'md'}`;
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: name });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  } catch (error) {
    fail(error, $('#settings-status'));
  }
}

/** Has the bot send the export to the private chat: Telegram's in-app browsers may not save a
 * file the page made. */
async function sendToChat(format) {
  const line = $('#settings-status');
  try {
    const sent = await api(`export/send?${chatQuery()}&format=${format}`, { method: 'POST' });
    line.textContent = sent.message;
  } catch (error) {
    fail(error, line);
  }
}

// --- Usage -----------------------------------------------------------------------------------

async function loadUsage() {
  try {
    const usage = await api('usage');
    drawChart($('#usage-chart'), usage.days, usage.limit);
    $('#usage-today').textContent = `${t('app-today')}: ${number(usage.today)}`;
    $('#usage-limit').textContent = usage.limit === null
      ? t('app-no-limit') : `${t('app-daily-limit')}: ${number(usage.limit)}`;
    $('#usage-media').textContent = [
      mediaLine('app-images-today', usage.images, ''),
      mediaLine('app-speech-today', usage.speech_seconds, ' s'),
    ].filter(Boolean).join(' · ');
  } catch (error) {
    fail(error);
  }
}

/** "Pictures today: 2 of 5", or nothing where the bot does not offer them (`figure` null). */
function mediaLine(id, figure, unit) {
  if (!figure) return '';
  const used = `${number(figure.used)}${unit}`;
  return figure.limit === null ? `${t(id)}: ${used}` : `${t(id)}: ${used} / ${number(figure.limit)}${unit}`;
}

/** Draws `days` ({day_ms, tokens}, oldest first) as bars in `chart`, with `limit` as a line. */
function drawChart(chart, days, limit) {
  const width = 320;
  const height = 160;
  const top = 14;
  const bottom = 18;
  const plot = height - top - bottom;
  const highest = Math.max(1, limit || 0, ...days.map((day) => day.tokens));
  const y = (tokens) => top + plot - (tokens / highest) * plot;
  const slot = width / Math.max(1, days.length);
  chart.replaceChildren(svg('line', { x1: 0, x2: width, y1: top + plot, y2: top + plot, class: 'axis' }));
  days.forEach((day, index) => {
    const bar = svg('rect', {
      x: (index * slot + 1).toFixed(1), y: y(day.tokens).toFixed(1),
      width: Math.max(1, slot - 2).toFixed(1), height: (top + plot - y(day.tokens)).toFixed(1), class: 'bar',
    });
    const title = svg('title');
    title.textContent = `${state.formats.day.format(new Date(day.day_ms))}: ${number(day.tokens)}`;
    bar.append(title);
    chart.append(bar);
  });
  if (limit !== null && limit !== undefined) {
    chart.append(svg('line', { x1: 0, x2: width, y1: y(limit), y2: y(limit), class: 'limit' }));
    chart.append(label(width - 2, y(limit) - 3, `${t('app-daily-limit')}: ${number(limit)}`, 'end'));
  }
  chart.append(label(2, 10, number(highest), 'start'));
  if (days.length > 0) {
    chart.append(label(2, height - 4, state.formats.day.format(new Date(days[0].day_ms)), 'start'));
    const last = days[days.length - 1];
    chart.append(label(width - 2, height - 4, state.formats.day.format(new Date(last.day_ms)), 'end'));
  }
  chart.setAttribute('aria-label', t('app-tokens-per-day'));
}

function label(x, y, text, anchor) {
  const node = svg('text', { x, y: y.toFixed(1), 'text-anchor': anchor, class: 'chart-label' });
  node.textContent = text;
  return node;
}

// --- Admin -----------------------------------------------------------------------------------

async function loadAdmin() {
  try {
    const overview = await api('admin');
    drawChart($('#admin-chart'), overview.days, null);
    $('#admin-people tbody').replaceChildren(...overview.people.flatMap(personRow));
    $('#admin-strangers').replaceChildren(...overview.strangers.map(strangerItem));
    $('#strangers-empty').hidden = overview.strangers.length > 0;
  } catch (error) {
    fail(error, $('#admin-status'));
  }
}

const ACTIONS = { allowed: ['block'], blocked: ['unblock'], stranger: ['allow', 'block'], admin: [] };

function accessButtons(userId, access) {
  return (ACTIONS[access] || ['allow', 'block']).map((action) => button(`access-${action}`, `app-${action}`,
    () => adminAction('admin/access', { user_id: userId, action })));
}

function personRow(person) {
  const limitInput = el('input', {
    class: 'limit-input', inputmode: 'numeric', placeholder: t('app-limit-placeholder'), title: t('app-limit-placeholder'),
  });
  const setLimit = button('limit-set', 'app-set-limit', () => {
    const value = limitInput.value.trim().toLowerCase();
    if (!value) return;
    const limit = /^\d+$/.test(value) ? Number(value) : value;
    adminAction('admin/limit', { user_id: person.user_id, limit });
  });
  const limit = person.limit === null ? t('app-no-limit') : number(person.limit);
  const figures = el('tr', { data: { user: person.user_id } },
    el('td', { text: String(person.user_id) }),
    el('td', { text: number(person.messages) }),
    el('td', { text: number(person.tokens) }),
    el('td', { text: number(person.tokens_today) }),
    el('td', { text: limit }),
    el('td', { text: tOf('access', person.access) }));
  // The actions take a row of their own, so the table fits a phone's width.
  const actions = el('tr', { class: 'person-actions', data: { actionsOf: person.user_id } },
    el('td', { colspan: 6 }, el('div', { class: 'actions' },
      ...accessButtons(person.user_id, person.access), limitInput, setLimit)));
  return [figures, actions];
}

function strangerItem(stranger) {
  return el('li', { class: 'stranger', data: { user: stranger.user_id } },
    el('p', { text: String(stranger.user_id) }),
    el('p', { class: 'meta', text: `${when(stranger.alerted_ms)} · ${tOf('access', stranger.access)}` }),
    el('div', { class: 'actions' }, ...accessButtons(stranger.user_id, stranger.access)));
}

async function adminAction(path, body) {
  const line = $('#admin-status');
  try {
    const answer = await api(path, { method: 'POST', body });
    await loadAdmin();
    line.textContent = answer.message;
  } catch (error) {
    fail(error, line);
  }
}

start();
