// Where the fixture programs live (from the compiled test/support directory).
import { fileURLToPath } from 'node:url';

export const NODE_FIXTURE = fileURLToPath(
  new URL('../../../test/fixtures/ext-fixture.mjs', import.meta.url),
);
export const PY_FIXTURE = fileURLToPath(
  new URL('../../../test/fixtures/ext_fixture.py', import.meta.url),
);
