// The Kubernetes manifests checked without a cluster (none is reachable here; they were never
// applied to one): every YAML document parses and matches the vendored schema of its kind
// (schemas/kubernetes-1.30-subset.json, written from the Kubernetes OpenAPI), the kustomizations
// point at files and objects that exist, and the objects agree with each other and with the
// services: selectors, PDBs, HPAs, probes on the health routes, ConfigMap keys the services read.
// Run: node --test infra/kubernetes/manifests.test.mjs (after pnpm build: it reads the services'
// built configuration schemas).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Ajv from 'ajv';
import { parseAllDocuments } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const repository = join(here, '..', '..');
const schema = JSON.parse(readFileSync(join(here, 'schemas', 'kubernetes-1.30-subset.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(schema, 'k8s');
const validatorOf = (definition) => ajv.getSchema(`k8s#/definitions/${definition}`);

function yamlFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? yamlFiles(join(directory, entry.name)) : entry.name.endsWith('.yaml') ? [join(directory, entry.name)] : [],
  );
}

function parse(file) {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
    assert.equal(document.errors.length, 0, `${relative(here, file)}: ${document.errors.map((error) => error.message).join('; ')}`);
    return document.toJS();
  });
}

const files = yamlFiles(join(here, 'base')).concat(yamlFiles(join(here, 'overlays')), [join(here, 'secrets.example.yaml')]);
const kustomizationFiles = files.filter((file) => file.endsWith('kustomization.yaml'));
const patchFiles = new Set(kustomizationFiles.flatMap((file) => (parse(file)[0].patches ?? []).map((patch) => join(dirname(file), patch.path))));
const baseObjects = yamlFiles(join(here, 'base')).filter((file) => !file.endsWith('kustomization.yaml')).flatMap(parse);
const secrets = parse(join(here, 'secrets.example.yaml'));
const ofKind = (kind) => baseObjects.filter((object) => object.kind === kind);

function schemaErrors(definition, value) {
  const validate = validatorOf(definition);
  return validate(value) ? [] : validate.errors.map((error) => `${error.instancePath || '/'} ${error.message}`);
}

test('every document matches the vendored schema of its kind', () => {
  for (const file of files) {
    const definition = patchFiles.has(file) ? 'JsonPatch' : null;
    for (const document of parse(file)) {
      const kind = definition ?? document.kind;
      assert.ok(validatorOf(kind), `${relative(here, file)}: no vendored schema for kind ${kind}`);
      assert.deepEqual(schemaErrors(kind, document), [], `${relative(here, file)} (${kind} ${document.metadata?.name ?? ''})`);
    }
  }
});

test('the schema check fails on a misspelt field, a bad quantity and a missing selector', () => {
  const deployment = structuredClone(ofKind('Deployment')[0]);
  deployment.spec.replica = 2;
  deployment.spec.template.spec.containers[0].resources.requests.memory = '320 megabytes';
  delete deployment.spec.selector;
  const errors = schemaErrors('Deployment', deployment).join('\n');
  assert.match(errors, /must NOT have additional properties/);
  assert.match(errors, /must match pattern/);
  assert.match(errors, /must have required property 'selector'/);
});

test('kustomizations name files that exist, and patches target objects of the base', () => {
  for (const file of kustomizationFiles) {
    const kustomization = parse(file)[0];
    for (const resource of kustomization.resources ?? []) assert.ok(existsSync(join(dirname(file), resource)), `${relative(here, file)}: ${resource} is missing`);
    for (const { name } of kustomization.replicas ?? []) assert.ok(ofKind('Deployment').some((object) => object.metadata.name === name), `replicas: no Deployment ${name}`);
    for (const patch of kustomization.patches ?? []) {
      const target = baseObjects.find((object) => object.kind === patch.target.kind && object.metadata.name === patch.target.name);
      assert.ok(target, `${relative(here, file)}: the patch target ${patch.target.kind}/${patch.target.name} is not in the base`);
      for (const operation of parse(join(dirname(file), patch.path))[0]) {
        if (operation.op !== 'replace') continue;
        const value = operation.path.split('/').slice(1).reduce((node, key) => node?.[key], target);
        assert.notEqual(value, undefined, `${patch.path}: ${operation.path} does not exist in ${target.kind}/${target.metadata.name}`);
      }
    }
  }
});

test('each Deployment is selected by its pods, covered by a PDB and an HPA, and sized', () => {
  const deployments = ofKind('Deployment');
  assert.deepEqual(deployments.map((object) => object.metadata.name).sort(), ['fx-api', 'fx-worker', 'identity-api', 'identity-worker']);
  for (const deployment of deployments) {
    const name = deployment.metadata.name;
    const selector = deployment.spec.selector.matchLabels;
    for (const [key, value] of Object.entries(selector)) assert.equal(deployment.spec.template.metadata.labels[key], value, `${name}: its pods do not carry ${key}=${value}`);
    assert.ok(ofKind('PodDisruptionBudget').some((pdb) => JSON.stringify(pdb.spec.selector.matchLabels) === JSON.stringify(selector)), `${name}: no PodDisruptionBudget`);
    const hpa = ofKind('HorizontalPodAutoscaler').find((object) => object.spec.scaleTargetRef.kind === 'Deployment' && object.spec.scaleTargetRef.name === name);
    assert.ok(hpa, `${name}: no HorizontalPodAutoscaler`);
    assert.ok(hpa.spec.minReplicas <= hpa.spec.maxReplicas, `${name}: minReplicas above maxReplicas`);
    for (const container of deployment.spec.template.spec.containers) {
      assert.ok(container.resources?.requests?.cpu && container.resources?.requests?.memory, `${name}: requests for cpu and memory (the HPA scales on them)`);
      assert.ok(container.resources?.limits?.memory, `${name}: a memory limit`);
    }
  }
});

test('probes ask the services\' health routes; APIs are ready only when healthy', () => {
  const healthPaths = { identity: '/health', fx: '/api/v1/health' };
  for (const [service, path] of Object.entries(healthPaths)) {
    assert.match(readFileSync(join(repository, 'services', service, 'src', 'app.ts'), 'utf8'), new RegExp(`['"]${path.replaceAll('/', '\\/')}['"]`), `${service} no longer serves ${path}`);
    const api = ofKind('Deployment').find((object) => object.metadata.name === `${service}-api`);
    const container = api.spec.template.spec.containers[0];
    assert.equal(container.readinessProbe?.httpGet?.path, path);
    assert.equal(container.startupProbe?.httpGet?.path, path);
    assert.ok(container.livenessProbe, `${service}-api: a liveness probe`);
  }
});

test('ConfigMap and Secret keys are variables the services read, and every reference resolves', async () => {
  const schemas = {
    identity: (await import(pathToFileURL(join(repository, 'services', 'identity', 'dist', 'config.js')).href)).identityEnvironmentSchema,
    fx: (await import(pathToFileURL(join(repository, 'services', 'fx', 'dist', 'config.js')).href)).fxEnvironmentSchema,
  };
  // Read by the AWS SDK itself, not by the service's configuration.
  const sdkVariables = new Set(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);
  for (const source of [...ofKind('ConfigMap'), ...secrets]) {
    const service = source.metadata.name.split('-')[0];
    const known = Object.keys(schemas[service].shape);
    for (const key of Object.keys(source.data ?? source.stringData ?? {})) {
      assert.ok(known.includes(key) || sdkVariables.has(key), `${source.kind} ${source.metadata.name}: ${key} is not a variable ${service} reads`);
    }
  }
  for (const deployment of ofKind('Deployment')) {
    for (const from of deployment.spec.template.spec.containers.flatMap((container) => container.envFrom ?? [])) {
      if (from.configMapRef) assert.ok(ofKind('ConfigMap').some((object) => object.metadata.name === from.configMapRef.name), `${deployment.metadata.name}: ConfigMap ${from.configMapRef.name}`);
      if (from.secretRef) assert.ok(secrets.some((object) => object.metadata.name === from.secretRef.name), `${deployment.metadata.name}: Secret ${from.secretRef.name} (secrets.example.yaml)`);
    }
  }
  for (const service of ofKind('Service')) {
    const deployment = ofKind('Deployment').find((object) => Object.entries(service.spec.selector).every(([key, value]) => object.spec.template.metadata.labels[key] === value));
    assert.ok(deployment, `Service ${service.metadata.name} selects no Deployment`);
    for (const port of service.spec.ports) assert.ok(deployment.spec.template.spec.containers.some((container) => container.ports.some((declared) => declared.name === port.targetPort)), `Service ${service.metadata.name}: no container port ${port.targetPort}`);
  }
  for (const ingress of ofKind('Ingress')) {
    for (const path of ingress.spec.rules.flatMap((rule) => rule.http.paths)) {
      const backend = ofKind('Service').find((object) => object.metadata.name === path.backend.service.name);
      assert.ok(backend?.spec.ports.some((port) => port.name === path.backend.service.port.name), `Ingress ${ingress.metadata.name}: no Service port ${path.backend.service.name}:${path.backend.service.port.name}`);
    }
  }
});

test('identity\'s Ingress forwards the client certificate in the header identity reads', () => {
  const ingress = ofKind('Ingress').find((object) => object.metadata.name === 'identity');
  assert.equal(ingress.metadata.annotations['nginx.ingress.kubernetes.io/auth-tls-pass-certificate-to-upstream'], 'true');
  assert.equal(ingress.metadata.annotations['nginx.ingress.kubernetes.io/auth-tls-verify-client'], 'optional_no_ca');
  // ingress-nginx sends the URL-escaped PEM as ssl-client-cert.
  assert.equal(ofKind('ConfigMap').find((object) => object.metadata.name === 'identity-config').data.CLIENT_CERT_HEADER, 'ssl-client-cert');
});
