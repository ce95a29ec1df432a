// Workspace questions about rxjs 7.8.1, phrased as users type them, each answer checked by reading the package's sources.
import type { QuestionSets } from './questionSet.js';

const internal = 'src/internal';

/** The held-out questions were written with the tuning ones and never looked at while changing the ranking. */
export const RXJS_QUESTIONS: QuestionSets = {
  tuning: [
    { query: 'how does switchMap drop the previous inner observable', expected: [{ file: `${internal}/operators/switchMap.ts`, symbol: 'switchMap' }], keywords: ['switchMap'] },
    { query: 'where is retry with a delay implemented?', expected: [{ file: `${internal}/operators/retry.ts`, symbol: 'retry' }], keywords: ['retry'] },
    { query: 'how does debounceTime work', expected: [{ file: `${internal}/operators/debounceTime.ts`, symbol: 'debounceTime' }], keywords: ['debounceTime'] },
    { query: 'convert an observable to a promise', expected: [{ file: `${internal}/firstValueFrom.ts`, symbol: 'firstValueFrom' }, { file: `${internal}/lastValueFrom.ts`, symbol: 'lastValueFrom' }, { file: `${internal}/Observable.ts`, symbol: 'Observable.toPromise' }], keywords: ['promise'] },
    { query: 'how does a Subject send a value to all its observers', expected: [{ file: `${internal}/Subject.ts`, symbol: 'Subject.next' }, { file: `${internal}/Subject.ts`, symbol: 'Subject' }], keywords: ['Subject'] },
    { query: 'how does shareReplay cache values for late subscribers', expected: [{ file: `${internal}/operators/shareReplay.ts`, symbol: 'shareReplay' }], keywords: ['shareReplay'] },
    { query: 'where are teardown functions run on unsubscribe', expected: [{ file: `${internal}/Subscription.ts`, symbol: 'Subscription.unsubscribe' }], keywords: ['unsubscribe'] },
  ],
  heldOut: [
    { query: 'how does combineLatest wait for every source to emit', expected: [{ file: `${internal}/observable/combineLatest.ts`, symbol: 'combineLatest' }, { file: `${internal}/observable/combineLatest.ts`, symbol: 'combineLatestInit' }], keywords: ['combineLatest'] },
    { query: 'what does the async scheduler use to schedule work', expected: [{ file: `${internal}/scheduler/AsyncAction.ts`, symbol: 'AsyncAction' }, { file: `${internal}/scheduler/async.ts`, symbol: 'asyncScheduler' }], keywords: ['async'] },
    { query: 'where is catchError implemented', expected: [{ file: `${internal}/operators/catchError.ts`, symbol: 'catchError' }], keywords: ['catchError'] },
    { query: 'how does mergeMap limit concurrency', expected: [{ file: `${internal}/operators/mergeInternals.ts`, symbol: 'mergeInternals' }, { file: `${internal}/operators/mergeMap.ts`, symbol: 'mergeMap' }], keywords: ['concurrent'] },
    { query: 'create an observable from DOM events', expected: [{ file: `${internal}/observable/fromEvent.ts`, symbol: 'fromEvent' }], keywords: ['fromEvent'] },
    { query: 'how does a BehaviorSubject keep its current value', expected: [{ file: `${internal}/BehaviorSubject.ts`, symbol: 'BehaviorSubject' }], keywords: ['BehaviorSubject'] },
  ],
};
