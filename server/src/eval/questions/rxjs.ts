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
  // Written later, from the sources alone, by an engineer who never saw how the product ranks them: measured only.
  heldOut2: [
    { query: 'fail if the request takes more than 5 seconds', expected: [{ file: `${internal}/operators/timeout.ts`, symbol: 'timeout' }, { file: `${internal}/operators/timeout.ts`, symbol: 'TimeoutError' }], keywords: ['timeout'] },
    { query: 'wait for all my http calls to finish and get every result', expected: [{ file: `${internal}/observable/forkJoin.ts`, symbol: 'forkJoin' }], keywords: ['forkJoin'] },
    { query: 'let at most one click through per second', expected: [{ file: `${internal}/operators/throttleTime.ts`, symbol: 'throttleTime' }, { file: `${internal}/operators/throttle.ts`, symbol: 'throttle' }], keywords: ['throttleTime'] },
    { query: 'how does takeUntil complete when the notifier emits', expected: [{ file: `${internal}/operators/takeUntil.ts`, symbol: 'takeUntil' }], keywords: ['takeUntil'] },
    { query: 'emit a counter every second', expected: [{ file: `${internal}/observable/interval.ts`, symbol: 'interval' }, { file: `${internal}/observable/timer.ts`, symbol: 'timer' }], keywords: ['interval'] },
    { query: 'skip a value when it equals the previous one', expected: [{ file: `${internal}/operators/distinctUntilChanged.ts`, symbol: 'distinctUntilChanged' }], keywords: ['distinctUntilChanged'] },
    { query: 'what happens to an error when I subscribe without an error callback', expected: [{ file: `${internal}/Subscriber.ts`, symbol: 'handleUnhandledError' }, { file: `${internal}/util/reportUnhandledError.ts`, symbol: 'reportUnhandledError' }, { file: `${internal}/config.ts`, symbol: 'GlobalConfig.onUnhandledError' }], keywords: ['onUnhandledError'] },
    { query: 'ignore new clicks while the save request is still in flight', expected: [{ file: `${internal}/operators/exhaustMap.ts`, symbol: 'exhaustMap' }], keywords: ['exhaustMap'] },
    { query: 'how does pipe chain operators together', expected: [{ file: `${internal}/Observable.ts`, symbol: 'Observable.pipe' }, { file: `${internal}/util/pipe.ts`, symbol: 'pipeFromArray' }, { file: `${internal}/util/pipe.ts`, symbol: 'pipe' }], keywords: ['pipe'] },
    { query: 'stop the shared source when the last subscriber leaves', expected: [{ file: `${internal}/operators/share.ts`, symbol: 'share' }, { file: `${internal}/operators/share.ts`, symbol: 'handleReset' }, { file: `${internal}/operators/share.ts`, symbol: 'ShareConfig.resetOnRefCountZero' }], keywords: ['share'] },
  ],
  // Written after held-out-2 was measured, in its newcomer manner (everyday words, typos), to tune the next ranking round on.
  tuning3: [
    { query: 'collect whatever comes in during each 500ms into an array', expected: [{ file: `${internal}/operators/bufferTime.ts`, symbol: 'bufferTime' }], keywords: ['bufferTime'] },
    { query: 'log every value for debugging without changing the stream', expected: [{ file: `${internal}/operators/tap.ts`, symbol: 'tap' }, { file: `${internal}/operators/tap.ts`, symbol: 'TapObserver' }], keywords: ['tap'] },
    { query: 'give me the previous and the current value together', expected: [{ file: `${internal}/operators/pairwise.ts`, symbol: 'pairwise' }], keywords: ['pairwise'] },
    { query: 'how does scan accumulate values with a seed', expected: [{ file: `${internal}/operators/scan.ts`, symbol: 'scan' }, { file: `${internal}/operators/scanInternals.ts`, symbol: 'scanInternals' }], keywords: ['scan'] },
    { query: 'show an empty list first, before the real data arrives', expected: [{ file: `${internal}/operators/startWith.ts`, symbol: 'startWith' }], keywords: ['startWith'] },
    { query: 'when the button is clicked grab the latest value of the search box stream', expected: [{ file: `${internal}/operators/withLatestFrom.ts`, symbol: 'withLatestFrom' }], keywords: ['withLatestFrom'] },
    { query: 'hide the spinner no matter if it errored or completed', expected: [{ file: `${internal}/operators/finalize.ts`, symbol: 'finalize' }], keywords: ['finalize'] },
    { query: 'send a POST w/ a json body using rxjs', expected: [{ file: `${internal}/ajax/ajax.ts`, symbol: 'ajax' }, { file: `${internal}/ajax/ajax.ts`, symbol: 'ajaxPost' }, { file: `${internal}/ajax/ajax.ts`, symbol: 'fromAjax' }, { file: `${internal}/ajax/ajax.ts`, symbol: 'extractContentTypeAndMaybeSerializeBody' }], keywords: ['ajax'] },
    { query: 'how do i test my observables with marble diagrams', expected: [{ file: `${internal}/testing/TestScheduler.ts`, symbol: 'TestScheduler.run' }, { file: `${internal}/testing/TestScheduler.ts`, symbol: 'RunHelpers' }, { file: `${internal}/testing/TestScheduler.ts`, symbol: 'TestScheduler.expectObservable' }, { file: `${internal}/testing/TestScheduler.ts`, symbol: 'TestScheduler.parseMarbles' }], keywords: ['TestScheduler'] },
    { query: 'whichever server answers first wins, cancel the others', expected: [{ file: `${internal}/observable/race.ts`, symbol: 'race' }, { file: `${internal}/observable/race.ts`, symbol: 'raceInit' }], keywords: ['race'] },
    { query: 'how does defaultIfEmpty know the source was empty', expected: [{ file: `${internal}/operators/defaultIfEmpty.ts`, symbol: 'defaultIfEmpty' }], keywords: ['defaultIfEmpty'] },
    { query: 'multiplex several channels over one websocket', expected: [{ file: `${internal}/observable/dom/WebSocketSubject.ts`, symbol: 'WebSocketSubject.multiplex' }, { file: `${internal}/observable/dom/webSocket.ts`, symbol: 'webSocket' }], keywords: ['multiplex'] },
  ],
};
