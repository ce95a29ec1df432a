// Set-up file of every test file: the fixture copies a file made are removed once its tests (and their hooks) are done.
import { afterAll } from 'vitest';
import { removeFixtureCopies } from './fixtureCopies.js';

afterAll(() => removeFixtureCopies());
