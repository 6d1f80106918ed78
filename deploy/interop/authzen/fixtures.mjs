// Loads the AuthZEN test fixtures into a running Warden through its public API, each under a person of its own (the
// three reuse names such as user:alice, and a person's agents are what their evaluations and searches see):
//   - certification: the fixture of certification/authorization-api-1_0-scenario.md (alice, bob; record-1, record-2);
//   - todo: the users and policy of interop/authzen-todo-backend (rick admin, morty and summer editors, beth and jerry
//     viewers);
//   - search: users.json and records.json of interop/authzen-search-demo and its policy.
// Every subject is an agent whose metadata `authzen.subject` names it (`user:<id>`), with the fixture's properties
// beside it; the policies are permissions and CEL conditions (docs/authzen.md explains the mapping). Each person gets
// an API token with `authorize:write`, what a gateway would hold.
//   WARDEN_URL=http://localhost:18080 node deploy/interop/authzen/fixtures.mjs   prints {fixture: token, ...}
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { patientFetch, signUp, truncate } from '../harness.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));

async function call(baseUrl, method, path, token, body) {
  const headers = { accept: 'application/json', 'content-type': 'application/json' };
  if (token) {
    headers.authorization = `Bearer ${token}`;
  }
  const response = await patientFetch(`${baseUrl}${path}`, { method, headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) {
    throw new Error(`${method} ${path} answered ${response.status}: ${truncate(text, 500)}`);
  }
  return JSON.parse(text);
}

/** A new person with these agents (`{name, metadata, permissions}`); their API token holding authorize:write. */
async function person(baseUrl, tag, agents) {
  const credentials = await signUp(baseUrl, tag);
  const session = await call(baseUrl, 'POST', '/auth/sign-in', undefined, credentials);
  for (const agent of agents) {
    await call(baseUrl, 'POST', '/agents', session.token, {
      ownerId: session.user.id, name: agent.name, type: 'autonomous', metadata: agent.metadata,
      permissions: agent.permissions,
    });
  }
  const token = await call(baseUrl, 'POST', '/auth/tokens', session.token, {
    name: `authzen ${tag}`, scopes: ['authorize:write'],
  });
  return token.token;
}

const isAdmin = "(has(context.subject) && has(context.subject.role) && context.subject.role == 'admin')";

/** The certification scenario's fixture and its eight mandated decisions, as permissions. */
export function certification() {
  return [
    {
      name: 'alice', metadata: { 'authzen.subject': 'user:alice' },
      permissions: [
        { resource: 'record:*', actions: ['read'] },
        // rules 2, 5 and 6: alice writes any record that is not archived; an admin writes archived ones too
        { resource: 'record:*', actions: ['write'], constraints: { when:
          `!has(resource.properties.status) || resource.properties.status != 'archived' || ${isAdmin}` } },
        // rules 7 and 8: a soft delete only
        { resource: 'record:*', actions: ['delete'], constraints: { when:
          'has(context.action) && has(context.action.soft) && context.action.soft == true' } },
      ],
    },
    {
      name: 'bob', metadata: { 'authzen.subject': 'user:bob', role: 'admin' },
      permissions: [
        // rule 3, and the records bob reads (S1)
        { resource: 'record:record-1', actions: ['read'] },
        { resource: 'record:record-2', actions: ['read'] },
        // rules 4 and 6: bob writes archived records as an admin (his own role, or the one the request gives);
        // record-2 is the archived one (S4 to S6 search for it without giving its status every time)
        { resource: 'record:*', actions: ['write'], constraints: { when:
          `has(resource.properties.status) && resource.properties.status == 'archived' && (agent.metadata.role == 'admin' || ${isAdmin})` } },
        { resource: 'record:record-2', actions: ['write'], constraints: { when:
          `agent.metadata.role == 'admin' || ${isAdmin}` } },
      ],
    },
  ];
}

/** The todo application's five users (their identity provider's subject ids) and its roles. */
export function todo() {
  const users = [
    ['CiRmZDA2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs', 'rick@the-citadel.com', 'admin'],
    ['CiRmZDE2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs', 'morty@the-citadel.com', 'editor'],
    ['CiRmZDI2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs', 'summer@the-smiths.com', 'editor'],
    ['CiRmZDM2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs', 'beth@the-smiths.com', 'viewer'],
    ['CiRmZDQ2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs', 'jerry@the-smiths.com', 'viewer'],
  ];
  return users.map(([id, email, role]) => {
    const permissions = [
      { resource: 'user:*', actions: ['can_read_user'] },
      { resource: 'todo:*', actions: ['can_read_todos'] },
    ];
    if (role === 'admin') {
      permissions.push({ resource: 'todo:*', actions: ['can_create_todo', 'can_update_todo', 'can_delete_todo'] });
    } else if (role === 'editor') {
      permissions.push({ resource: 'todo:*', actions: ['can_create_todo'] });
      // an editor changes their own todos: the todo's owner is a property the application sends
      permissions.push({ resource: 'todo:*', actions: ['can_update_todo', 'can_delete_todo'], constraints: {
        when: 'has(resource.properties.ownerID) && resource.properties.ownerID == agent.metadata.email' } });
    }
    return { name: email.split('@')[0], metadata: { 'authzen.subject': `user:${id}`, email, role }, permissions };
  });
}

/**
 * The search demo's users and records, and its policy: a user views the records they own or of their department, a
 * manager all of them; a user edits their own records, a manager those of their department too; only the owner
 * deletes. Warden holds no record catalogue, so ownership and departments become permissions on concrete records
 * (which is also how the search endpoints learn the records exist); a manager's "all records" is `record:*`.
 */
export function search() {
  const users = JSON.parse(readFileSync(`${here}search/users.json`, 'utf8'));
  const records = JSON.parse(readFileSync(`${here}search/records.json`, 'utf8'));
  return users.map((user) => {
    const manager = user.role === 'manager';
    const own = records.filter((r) => r.owner === user.id).map((r) => `record:${r.id}`);
    const department = records.filter((r) => r.department === user.department).map((r) => `record:${r.id}`);
    const permissions = [];
    for (const resource of own) {
      permissions.push({ resource, actions: ['view', 'edit', 'delete'] });
    }
    if (manager) {
      permissions.push({ resource: 'record:*', actions: ['view'] });
    }
    for (const resource of department) {
      permissions.push({ resource, actions: manager ? ['view', 'edit'] : ['view'] });
    }
    return {
      name: user.id,
      metadata: { 'authzen.subject': `user:${user.id}`, role: user.role, department: user.department },
      permissions,
    };
  });
}

/** Loads the three fixtures; the API token of each fixture's person. */
export async function loadFixtures(baseUrl) {
  return {
    certification: await person(baseUrl, 'azcert', certification()),
    todo: await person(baseUrl, 'aztodo', todo()),
    search: await person(baseUrl, 'azsearch', search()),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { wardenUrl } = await import('../harness.mjs');
  console.log(JSON.stringify(await loadFixtures(wardenUrl()), null, 2));
}
