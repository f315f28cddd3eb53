import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, type DashboardConfig, type DeveloperClient, type Me, type NewClient, type RotatedKey } from '../api.js';
import type { Formatters } from '../format.js';
import { fill, type DashboardMessages } from '../i18n/messages.js';
import { problemText } from '../problems.js';
import { CurlExample, NewKeyPanel, RotatedKeyPanel } from './new-key.js';
import { ConfirmInRow, ItemTable } from './table-parts.js';

interface Props {
  t: DashboardMessages;
  format: Formatters;
  me: Me;
  config: DashboardConfig | null;
  fresh: NewClient | null;
  onCreated: (created: NewClient) => void;
  onSessionEnded: () => void;
}

export function KeysScreen({ t, format, me, config, fresh, onCreated, onSessionEnded }: Props) {
  const [clients, setClients] = useState<DeveloperClient[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  // The private key a rotation just issued: held here only, so leaving the screen hides it for good.
  const [rotated, setRotated] = useState<{ name: string; key: RotatedKey } | null>(null);
  const limit = config?.clientsPerPlan[me.plan];

  const refused = (problem: unknown) => {
    if (problem instanceof ApiProblem && problem.status === 401) return onSessionEnded();
    setError(problemText(problem, t, limit === undefined ? {} : { 403: fill(t.limitReached, { plan: me.plan, count: limit }) }));
  };
  const load = () => api.clients().then(({ clients }) => setClients(clients), refused);
  useEffect(() => void load(), []);

  const create = async () => {
    setError(null);
    try {
      onCreated(await api.createClient(name.trim()));
      setName('');
      await load();
    } catch (problem) {
      refused(problem);
    }
  };
  const update = async (id: string, change: { name?: string; isActive?: false }) => {
    setError(null);
    try {
      const updated = await api.updateClient(id, change);
      setClients((before) => before?.map((client) => (client.id === id ? updated : client)) ?? null);
    } catch (problem) {
      refused(problem);
    }
  };

  const rotate = async (client: DeveloperClient) => {
    setError(null);
    try {
      setRotated({ name: client.name, key: await api.rotateKey(client.id) });
      await load();
    } catch (problem) {
      refused(problem);
    }
  };

  const firstActive = clients?.find((client) => client.isActive);
  return (
    <>
      {fresh && <NewKeyPanel t={t} created={fresh} />}
      {rotated && <RotatedKeyPanel t={t} format={format} name={rotated.name} rotated={rotated.key} />}
      <section class="card wide" aria-labelledby="keys-title">
        <h2 id="keys-title">{t.keys}</h2>
        {error && (
          <p class="field-error" role="alert" data-testid="keys-error">
            {error}
          </p>
        )}
        {clients === null ? <p class="loading">…</p> : <ClientTable t={t} format={format} clients={clients} onUpdate={update} onRotate={rotate} />}
        <form
          class="inline-form"
          data-testid="create-key"
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <label class="field">
            <span>{t.keyName}</span>
            <input type="text" name="name" required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <button type="submit" class="primary">
            {t.createKey}
          </button>
        </form>
        {limit !== undefined && <p class="note">{fill(t.limitReached, { plan: me.plan, count: limit })}</p>}
      </section>
      {!fresh && firstActive && (
        <section class="card wide" aria-labelledby="try-title">
          <h2 id="try-title">{t.tryIt}</h2>
          <CurlExample label={t.tryIt} publicKey={firstActive.publicKey} privateKey="svc_prv_…" />
        </section>
      )}
    </>
  );
}

interface ClientTableProps {
  t: DashboardMessages;
  format: Formatters;
  clients: DeveloperClient[];
  onUpdate: (id: string, change: { name?: string; isActive?: false }) => Promise<void>;
  onRotate: (client: DeveloperClient) => Promise<void>;
}

function ClientTable({ t, format, clients, onUpdate, onRotate }: ClientTableProps) {
  return (
    <ItemTable className="clients" testId="clients" columns={[t.name, t.publicKey, t.plan, t.created, t.lastUsed, t.active, t.actions]}>
      {clients.map((client) => (
        <ClientRow key={client.id} t={t} format={format} client={client} onUpdate={(change) => onUpdate(client.id, change)} onRotate={() => onRotate(client)} />
      ))}
    </ItemTable>
  );
}

interface ClientRowProps {
  t: DashboardMessages;
  format: Formatters;
  client: DeveloperClient;
  onUpdate: (change: { name?: string; isActive?: false }) => Promise<void>;
  onRotate: () => Promise<void>;
}

function ClientRow({ t, format, client, onUpdate, onRotate }: ClientRowProps) {
  const [mode, setMode] = useState<'view' | 'rename' | 'deactivate' | 'rotate'>('view');
  const [name, setName] = useState(client.name);
  const done = (change: { name?: string; isActive?: false }) => void onUpdate(change).then(() => setMode('view'));
  return (
    <tr data-client={client.id} class={client.isActive ? undefined : 'inactive'}>
      <th scope="row">
        {mode === 'rename' ? (
          <form
            class="row-form"
            onSubmit={(event) => {
              event.preventDefault();
              done({ name: name.trim() });
            }}
          >
            <label class="visually-hidden" for={`name-${client.id}`}>
              {t.name}
            </label>
            <input id={`name-${client.id}`} type="text" required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
            <button type="submit">{t.save}</button>
            <button type="button" onClick={() => setMode('view')}>
              {t.cancel}
            </button>
          </form>
        ) : (
          client.name
        )}
      </th>
      {/* data-label: on a phone each row is a card and the cell names itself (the header row is hidden there). */}
      <td data-label={t.publicKey}>
        <code dir="ltr">{client.publicKey}</code>
      </td>
      <td data-label={t.plan}>{client.plan}</td>
      <td data-label={t.created}>{format.instant(client.createdUtc)}</td>
      <td data-label={t.lastUsed}>{client.lastUsedUtc ? format.instant(client.lastUsedUtc) : t.never}</td>
      <td data-label={t.active}>{client.isActive ? t.yes : t.no}</td>
      <td class="actions">
        {client.isActive && mode === 'view' && (
          <>
            <button type="button" onClick={() => setMode('rename')}>
              {t.rename}
            </button>
            <button type="button" onClick={() => setMode('rotate')}>
              {t.rotate}
            </button>
            <button type="button" class="danger" onClick={() => setMode('deactivate')}>
              {t.deactivate}
            </button>
          </>
        )}
        {mode === 'rotate' && <ConfirmInRow action={t.rotate} question={fill(t.rotateConfirm, { name: client.name })} cancel={t.cancel} danger={false} onConfirm={() => void onRotate().then(() => setMode('view'))} onCancel={() => setMode('view')} />}
        {mode === 'deactivate' && <ConfirmInRow action={t.deactivate} question={fill(t.deactivateConfirm, { name: client.name })} cancel={t.cancel} danger onConfirm={() => done({ isActive: false })} onCancel={() => setMode('view')} />}
      </td>
    </tr>
  );
}
