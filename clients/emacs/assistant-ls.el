;;; assistant-ls.el --- Eglot client for assistant-ls: ask, trace, rate, revert  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: languages, tools

;;; Commentary:

;; assistant-ls is a language server that offers assistant tasks as code
;; actions and custom `assistant/*' requests.  This file registers it with
;; Eglot for TypeScript and JavaScript buffers, and adds the commands that
;; need custom requests (Eglot shows code actions and applies edits itself):
;;
;;   M-x assistant-ls-ask     free text, on the region if active (else the
;;                            point); choose a candidate and the server
;;                            applies it, or read a text answer
;;   M-x assistant-ls-trace   the interactions behind the code at point
;;                            (C-u: the newest), RET on one's "Leads to"
;;                            opens its code, or what its answer cites
;;   M-x assistant-ls-rate    thumb up or down (or withdraw), with a remark
;;   M-x assistant-ls-revert  undo what an interaction inserted
;;   M-x assistant-ls-agents  the agents the server runs, and the settings
;;                            that disabled any
;;   M-x assistant-ls-cancel  stop what the assistant is doing (an ask in
;;                            flight, work the server reports progress of)
;;
;; Text answers (explanations, workspace questions), from the ask and from
;; code actions (`assistant/showAnswer'), open in `*assistant-ls answer*',
;; and the places they name in an xref buffer that jumps to the code.
;;
;; `assistant-ls-inline-mode' (on in the buffers assistant-ls manages)
;; shows the server's inline completions as ghost text after point: TAB
;; accepts one while it is shown, and the trace records it.
;;
;; An edit the server marks for confirmation (its `preview' setting) is
;; shown as a diff in `*assistant-ls preview*' first: a applies it, q
;; discards it, and nothing is ever saved.
;;
;; Where Emacs has no TypeScript mode (Debian's Emacs 28), .ts files open in
;; `assistant-ls-typescript-mode', derived from `js-mode'; outside version
;; control, the nearest folder with a package.json or tsconfig.json is the
;; project, so the server's `.assistant/' lands at the package root.
;;
;; Eglot runs one server per major mode and project, so assistant-ls
;; replaces typescript-language-server in the buffers it manages: README.md
;; says how to choose.  The server does the work; these are thin wrappers.

;;; Code:

(require 'cl-lib)
(require 'seq)
(require 'subr-x)
(require 'jsonrpc)
(require 'eglot)
(require 'js)
(require 'project)
(require 'xref)
(require 'diff)
(require 'diff-mode)
(require 'project)

(defgroup assistant-ls nil
  "Eglot client for the assistant-ls language server."
  :group 'eglot
  :prefix "assistant-ls-")

(defcustom assistant-ls-program '("assistant-ls" "--stdio")
  "How to start the server: the program and its arguments."
  :type '(repeat string))

(defcustom assistant-ls-modes
  '((assistant-ls-typescript-mode . "typescript")
    (tsx-ts-mode . "typescriptreact")
    (typescript-ts-mode . "typescript")
    (typescript-mode . "typescript")
    (rjsx-mode . "javascriptreact")
    (js-jsx-mode . "javascriptreact")
    (js-ts-mode . "javascript")
    (js2-mode . "javascript")
    (js-mode . "javascript"))
  "Major modes assistant-ls manages, each with its LSP language id.
Derived modes come before their parents: Eglot takes the first match."
  :type '(alist :key-type symbol :value-type string))

(defcustom assistant-ls-request-timeout 120
  "Seconds to wait for the server; a model agent's answer can take a while."
  :type 'number)

(defvar assistant-ls--last nil
  "The server and interaction of the last `assistant-ls-ask'.
A cons (SERVER . INTERACTION); INTERACTION is a plist with :id and
:responses.")

(defvar-local assistant-ls--trace-server nil
  "In a trace buffer, the server its interactions come from.")

(defvar assistant-ls--in-flight nil
  "Requests sent and not answered yet, as lists (SERVER ID METHOD).
`assistant-ls-cancel' stops them.")

(defvar assistant-ls--progress (make-hash-table :test #'equal)
  "Cancellable progress the server reported and has not ended.
Keys are (SERVER . TOKEN), values the progress titles.  Eglot 1.10 and
later declare progress support; 1.9 does not, and gets none.")

;;;; Registration

(defclass assistant-ls-server (eglot-lsp-server) ()
  :documentation "An assistant-ls connection: it shows text answers and previews edits itself.")

(defun assistant-ls-eglot-entry ()
  "The `eglot-server-programs' entry for assistant-ls."
  (cons (mapcar (lambda (pair) (list (car pair) :language-id (cdr pair)))
                assistant-ls-modes)
        (cons 'assistant-ls-server assistant-ls-program)))

(defvar assistant-ls-inline-enable)

(cl-defmethod eglot-client-capabilities ((_server assistant-ls-server))
  "Eglot's capabilities, and that text answers come as a notification."
  (let ((capabilities (cl-call-next-method)))
    ;; typeErrors: Eglot runs one server per mode, so none beside this one
    ;; shows TypeScript's errors; the server publishes them (diagnostics.publish).
    (plist-put capabilities :experimental '(:assistant (:showAnswer t :typeErrors t)))
    ;; LSP 3.18's inline completion, when `assistant-ls-setup' turns the
    ;; inline mode on: a local model then loads as a file opens.
    (if assistant-ls-inline-enable
        (plist-put capabilities :textDocument
                   (append (plist-get capabilities :textDocument)
                           (list :inlineCompletion (list :dynamicRegistration :json-false))))
      capabilities)))

(cl-defmethod eglot-handle-notification
  ((_server assistant-ls-server) (_method (eql assistant/showAnswer))
   &key title text locations &allow-other-keys)
  "Show a text answer the server sent after a code action or command."
  (assistant-ls--show-answer title text locations))

;;;###autoload
(defun assistant-ls-setup ()
  "Make Eglot start assistant-ls for the modes in `assistant-ls-modes'.
The entry goes first in `eglot-server-programs', so it wins over
typescript-language-server for those modes."
  (interactive)
  (setq eglot-server-programs
        (cons (assistant-ls-eglot-entry)
              (cl-remove-if (lambda (entry)
                              (member (cdr entry)
                                      (list assistant-ls-program
                                            (cdr (assistant-ls-eglot-entry)))))
                            eglot-server-programs)))
  (add-hook 'eglot-managed-mode-hook #'assistant-ls-inline--maybe-enable))

;;;; TypeScript where Emacs has no TypeScript mode

(defconst assistant-ls--typescript-files "\\.[cm]?tsx?\\'"
  "The files of TypeScript: .ts, .tsx, .mts and .cts.")

(defconst assistant-ls--typescript-keywords
  `((,(regexp-opt '("abstract" "declare" "enum" "implements" "interface"
                    "keyof" "namespace" "override" "private" "protected"
                    "public" "readonly" "satisfies")
                  'symbols)
     . font-lock-keyword-face)
    ;; `type' is a common property name too: only where it declares a type.
    ("\\_<\\(type\\)\\_>[ \t]+\\(?:\\sw\\|\\s_\\)+[ \t]*[=<]"
     1 font-lock-keyword-face))
  "What TypeScript adds to JavaScript's keywords, for the fallback mode.")

;;;###autoload
(define-derived-mode assistant-ls-typescript-mode js-mode "TypeScript"
  "A major mode for TypeScript where Emacs has none, for assistant-ls.
Emacs 28 has no TypeScript mode of its own, and Emacs 29's
`typescript-ts-mode' needs a tree-sitter grammar: without either, a
.ts file would open in `fundamental-mode', where Eglot cannot start.
This is `js-mode' (its highlighting and indentation suit most
TypeScript) with TypeScript's own keywords; JSX only in .tsx files,
where `<T>' is markup rather than a type argument."
  (font-lock-add-keywords nil assistant-ls--typescript-keywords)
  ;; TypeScript is written with spaces; the file says how many.
  (setq-local indent-tabs-mode nil)
  (setq-local js-indent-level (assistant-ls--indent-step js-indent-level))
  (if (and buffer-file-name (string-match-p "\\.tsx\\'" buffer-file-name))
      (js-jsx-enable)
    (setq-local js-jsx-syntax nil)
    (setq-local js-jsx-detect-syntax nil)
    (remove-hook 'after-change-functions 'js-jsx--detect-after-change t)))

(defun assistant-ls--indent-step (default)
  "The indentation step the buffer's first indented lines use, else DEFAULT.
It is the smallest indentation by spaces, from 2 to 8 columns, among
the buffer's first 200 lines."
  (save-excursion
    (goto-char (point-min))
    (let ((step nil) (lines 0))
      (while (and (< lines 200) (not (eobp)))
        (when (looking-at "\\( +\\)[^ \t\n]")
          (let ((width (length (match-string 1))))
            (when (and (<= 2 width 8) (or (null step) (< width step)))
              (setq step width))))
        (forward-line 1)
        (setq lines (1+ lines)))
      (or step default))))

(defun assistant-ls--typescript-mode-usable-p ()
  "Whether Emacs has a TypeScript mode of its own that can open a file.
That is `typescript-mode' (a package), or `typescript-ts-mode' with
its tree-sitter grammar installed."
  (or (fboundp 'typescript-mode)
      (and (fboundp 'typescript-ts-mode)
           (fboundp 'treesit-ready-p)
           (treesit-ready-p 'typescript t))))

(defun assistant-ls--install-typescript-fallback ()
  "Open TypeScript files in `assistant-ls-typescript-mode' when nothing else can.
Nothing changes where a TypeScript mode is usable, or where
`auto-mode-alist' already names a mode for .ts files."
  (unless (or (assistant-ls--typescript-mode-usable-p)
              (let ((mode (assoc-default "x.ts" auto-mode-alist #'string-match)))
                (and mode (not (eq mode 'assistant-ls-typescript-mode)))))
    (add-to-list 'auto-mode-alist
                 (cons assistant-ls--typescript-files
                       'assistant-ls-typescript-mode))))

;;;; The project without version control

(defcustom assistant-ls-project-markers '("package.json" "tsconfig.json")
  "Files that make their folder the project, where no version control does.
Eglot starts one server per project, and the server keeps its trace in
`.assistant/' at the project's root: without this, a file outside a
repository would be a project of its own folder.  nil turns it off."
  :type '(repeat string))

(defun assistant-ls-project-find (dir)
  "The project of DIR by its nearest folder up with a project marker.
For `project-find-functions', after version control: a transient
project rooted at the nearest folder holding one of
`assistant-ls-project-markers'."
  (let ((roots (delq nil (mapcar (lambda (marker) (locate-dominating-file dir marker))
                                 assistant-ls-project-markers))))
    (when roots
      (cons 'transient
            (expand-file-name
             (car (sort roots (lambda (a b) (> (length a) (length b))))))))))

;; After the version-control finder (depth 0), which knows a repository's root.
(add-hook 'project-find-functions #'assistant-ls-project-find 90)
(assistant-ls--install-typescript-fallback)

;;;; Talking to the server

(defun assistant-ls--server ()
  "The assistant-ls server of this buffer; a user error when there is none."
  (let ((server (eglot-current-server)))
    (unless server
      (user-error "No Eglot server here: M-x eglot in a TypeScript buffer"))
    (let* ((provider (plist-get (eglot--capabilities server)
                                :executeCommandProvider))
           (commands (plist-get provider :commands)))
      (unless (seq-contains-p commands "assistant.document")
        (user-error "This buffer's server is not assistant-ls (see README)")))
    server))

(defconst assistant-ls--request-cancelled -32800
  "The JSON-RPC error code of a cancelled request.")

(defun assistant-ls--method-name (method)
  "METHOD, a keyword such as :assistant/ask, as the protocol writes it."
  (string-remove-prefix ":" (format "%s" method)))

(defun assistant-ls--send (server method params on-result on-error)
  "Send METHOD with PARAMS to SERVER, without waiting.
ON-RESULT is called with the result, ON-ERROR with the error (a plist
with :code and :message).  Until then `assistant-ls-cancel' can stop
the request.  Pending buffer changes go first, so the server sees what
the user sees."
  (when (and (eglot-managed-p) (eq (eglot-current-server) server))
    (eglot--signal-textDocument/didChange))
  (let* ((entry (list server nil (assistant-ls--method-name method)))
         (forget (lambda ()
                   (setq assistant-ls--in-flight
                         (delq entry assistant-ls--in-flight))))
         ;; jsonrpc's public calls do not say the id, which a cancel names.
         (id (car (jsonrpc--async-request-1
                   server method params
                   :success-fn (lambda (result)
                                 (funcall forget)
                                 (funcall on-result result))
                   :error-fn (lambda (error)
                               (funcall forget)
                               (funcall on-error error))
                   :timeout-fn (lambda ()
                                 (funcall forget)
                                 (funcall on-error
                                          '(:message "no answer in time")))
                   :timeout assistant-ls-request-timeout))))
    (setf (nth 1 entry) id)
    (push entry assistant-ls--in-flight)
    id))

(defun assistant-ls--cancel-request (server id)
  "Ask SERVER to stop request ID."
  (when (jsonrpc-running-p server)
    (jsonrpc-notify server :$/cancelRequest `(:id ,id))))

(defvar assistant-ls--asked-at 0
  "`num-nonmacro-input-events' when the user last asked for something.
An edit to preview that comes after more keys waits for them (see
`assistant-ls--busy-p').")

(defun assistant-ls--asked ()
  "Note that the user asked for something now; return the mark."
  (setq assistant-ls--asked-at num-nonmacro-input-events))

(defun assistant-ls--request (server method params)
  "Send METHOD with PARAMS to SERVER and return the result.
Waits for the answer; \[keyboard-quit] while waiting cancels the
request on the server too, and so does `assistant-ls-cancel' run from
a timer.  A cancelled request is a `user-error'."
  (assistant-ls--asked)
  (let* (done result failure
         (id (assistant-ls--send server method params
                                 (lambda (value) (setq result value done t))
                                 (lambda (error) (setq failure error done t)))))
    (condition-case nil
        (while (not done) (accept-process-output nil 0.05))
      (quit (assistant-ls--cancel-request server id)
            (signal 'quit nil)))
    (cond ((null failure) result)
          ((eql (plist-get failure :code) assistant-ls--request-cancelled)
           (user-error "assistant-ls: %s was cancelled; nothing applied"
                       (assistant-ls--method-name method)))
          (t (signal 'jsonrpc-error
                     (list (format "request id=%s failed:" id)
                           (cons 'jsonrpc-error-code
                                 (plist-get failure :code))
                           (cons 'jsonrpc-error-message
                                 (plist-get failure :message))))))))

(cl-defmethod eglot-handle-notification :before
  (server (_method (eql $/progress)) &key token value &allow-other-keys)
  "Remember the cancellable progress of SERVER, for `assistant-ls-cancel'.
With an Eglot that shows no progress (1.9), show it too."
  (let* ((key (cons server token))
         (kind (plist-get value :kind))
         (title (or (gethash key assistant-ls--progress) (plist-get value :title) "assistant-ls")))
    (cond ((and (equal kind "begin") (eq (plist-get value :cancellable) t))
           (puthash key title assistant-ls--progress))
          ((equal kind "end") (remhash key assistant-ls--progress)))
    (when (and (cl-typep server 'assistant-ls-server)
               (not (assistant-ls--eglot-shows-progress)))
      (assistant-ls--show-progress title value))))

(defun assistant-ls--interactions-at (server pos)
  "The interactions behind the code at POS, newest first, from SERVER."
  (let ((result (assistant-ls--request
                 server :assistant/trace
                 `(:textDocument ,(eglot--TextDocumentIdentifier)
                   :position ,(eglot--pos-to-lsp-position pos)))))
    (append (plist-get result :interactions) nil)))

(defun assistant-ls--context ()
  "The (SERVER . INTERACTION) that rate and revert act on.
In a trace buffer, the interaction at point; in a source buffer, the
newest interaction behind the code at point, else the last ask."
  (or (when-let ((interaction (get-text-property (point)
                                                 'assistant-ls-interaction)))
        (cons assistant-ls--trace-server interaction))
      (when (eglot-current-server)
        (let* ((server (assistant-ls--server))
               (found (car (assistant-ls--interactions-at server (point)))))
          (and found (cons server found))))
      assistant-ls--last
      (user-error "No assistant interaction here, and none asked yet")))

(defun assistant-ls--summary (response)
  "The server's plain-text line for RESPONSE, or nil from an older server.
It has no markdown and is never a code fence."
  (let ((summary (plist-get response :summary)))
    (and (stringp summary) (not (string-empty-p summary)) summary)))

(defun assistant-ls--label (response)
  "A one-line label for RESPONSE: its agent and its first line of words."
  (let* ((lines (split-string (or (plist-get response :text) "") "\n"))
         (words (seq-find (lambda (l) (string-match-p "[[:alnum:]]" l)) lines))
         (line (or (assistant-ls--summary response)
                   (string-trim (or words "") "[ \t/*#;-]+"))))
    (format "%s: %s"
            (plist-get (plist-get response :agent) :name)
            (truncate-string-to-width line 70 nil nil "..."))))

(defun assistant-ls--failure-line (response)
  "How RESPONSE, an unusable answer, reads, as the server words it.
An offline agent with nothing to add declined; an answer the oracle
turned down was rejected; an error or a timeout failed."
  (let* ((agent (plist-get response :agent))
         (name (plist-get agent :name))
         (status (plist-get response :status))
         (reason (or (plist-get response :error) status)))
    (cond ((and (equal status "empty") (string-prefix-p "rejected by " reason))
           (format "%s's answer was %s" name reason))
          ((and (equal status "empty") (eq (plist-get agent :isLLM) :json-false))
           (format "%s declined: %s" name reason))
          (t (format "%s failed: %s" name reason)))))

(defun assistant-ls--failures (responses)
  "One line per agent of RESPONSES that gave nothing usable.
An agent with a usable answer, or one the user cancelled, did not fail."
  (let (usable failed)
    (seq-doseq (response responses)
      (let ((agent (plist-get (plist-get response :agent) :name))
            (status (plist-get response :status)))
        (if (member status '("ok" "cancelled"))
            (push agent usable)
          (unless (assoc agent failed)
            (push (cons agent (assistant-ls--failure-line response)) failed)))))
    (delq nil (mapcar (lambda (entry)
                        (unless (member (car entry) usable) (cdr entry)))
                      (nreverse failed)))))

(defun assistant-ls--choose-response (interaction)
  "A response of INTERACTION: the used one, the only one, or one picked."
  (let ((responses (append (plist-get interaction :responses) nil)))
    (cond ((null responses)
           (user-error "Interaction %s has no response"
                       (plist-get interaction :id)))
          ((seq-find (lambda (r) (eq (plist-get r :used) t)) responses))
          ((null (cdr responses)) (car responses))
          (t (let ((choices (mapcar (lambda (r)
                                      (cons (assistant-ls--label r) r))
                                    responses)))
               (cdr (assoc (completing-read "Which answer: " choices nil t)
                           choices)))))))

;;;; Text answers

(defconst assistant-ls-answer-buffer "*assistant-ls answer*"
  "The buffer text answers are shown in; each answer replaces the last.")

(defun assistant-ls--xrefs (locations)
  "LOCATIONS (`AnswerLocation's of the protocol) as xref items."
  (mapcar (lambda (location)
            (let ((start (plist-get (plist-get location :range) :start)))
              (xref-make (plist-get location :label)
                         (xref-make-file-location
                          (eglot--uri-to-path (plist-get location :uri))
                          (1+ (plist-get start :line))
                          (plist-get start :character)))))
          (append locations nil)))

(defun assistant-ls--show-locations (locations code-window)
  "List LOCATIONS in an xref buffer, where RET jumps to the code.
The list opens below the selected window; the code opens in
CODE-WINDOW."
  (let ((xrefs (assistant-ls--xrefs locations)))
    (when xrefs
      ;; Called as `xref-show-xrefs' calls it (that name is public only from
      ;; xref 1.6), with the window the code should open in.
      (let ((display-buffer-overriding-action
             '((display-buffer-reuse-window display-buffer-below-selected))))
        (funcall xref-show-xrefs-function (lambda () xrefs)
                 `((window . ,code-window)))))))

(defun assistant-ls--show-answer (title text locations)
  "Show TITLE and TEXT whole in `assistant-ls-answer-buffer'.
The answer opens below the selected window, the places it names,
LOCATIONS, in an xref buffer below it; the markdown is shown as text
and the selected window stays selected.  Returns the answer buffer."
  (let ((buffer (get-buffer-create assistant-ls-answer-buffer))
        (code-window (selected-window)))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (special-mode)
        (erase-buffer)
        (insert (propertize (or title "assistant-ls answer") 'face 'bold)
                "\n\n" (or text "") "\n")
        (goto-char (point-min))))
    ;; Below the code rather than wherever `display-buffer' picks: in a
    ;; small frame it would reuse the other window, which the list of places
    ;; may need next.
    (let ((window (display-buffer
                   buffer
                   '((display-buffer-reuse-window
                      display-buffer-below-selected)))))
      (if (window-live-p window)
          (with-selected-window window
            (assistant-ls--show-locations locations code-window))
        (assistant-ls--show-locations locations code-window)))
    buffer))

(defun assistant-ls--text-answer-p (response)
  "Whether RESPONSE of `assistant/ask' is a text answer to show."
  (and (null (plist-get response :edit))
       (equal (plist-get response :status) "ok")
       (not (string-empty-p (or (plist-get response :text) "")))))

(defun assistant-ls--ask-title (task text)
  "The heading of the answer to TEXT classified as TASK."
  (if (equal task "question")
      (format "Question: %s" text)
    (format "%s: %s" (capitalize (format "%s" task)) text)))

;;;; Commands

(defconst assistant-ls--asking
  "assistant-ls: asking... (M-x assistant-ls-cancel stops it)"
  "What the echo area says while an `assistant-ls-ask' goes on.")

(defun assistant-ls--keep-outcome ()
  "Say the outcome in the echo area again if \"asking...\" comes back over it.
M-x hints at a shorter way to call the command (`suggest-key-bindings')
a while after it, for a while, and then puts back the line it covered,
\"asking...\" if that was still there: an answer that came meanwhile
would be followed by that line again, long after the asking was over."
  (let ((said (current-message)))
    (when (and said suggest-key-bindings (not (equal said assistant-ls--asking)))
      (run-at-time (+ (if (numberp suggest-key-bindings) suggest-key-bindings 2) 0.5)
                   nil
                   (lambda ()
                     (when (equal (current-message) assistant-ls--asking)
                       (message "%s" said)))))))

;;;###autoload
(defun assistant-ls-ask (text &optional beg end)
  "Ask the assistant TEXT, about the region BEG..END if given.
Without a region the request is about point, so \"explain this
function\" explains the function around it.  The server classifies
TEXT into a task and runs its agents.  A text answer (an explanation,
a workspace question) is shown in `*assistant-ls answer*', the places
it names in an xref buffer; with several candidates, they are offered
with `completing-read' (the agents that failed are named in the
prompt), and the server applies a chosen edit as a versioned edit.
Called as a command, the request goes on in the background:
`assistant-ls-cancel' stops it.  Called from Lisp, it waits, and
returns the `assistant/apply' result, the answer buffer, or the
`assistant/ask' result when there is nothing to use."
  (interactive (list (read-string "Ask the assistant: ")
                     (and (use-region-p) (region-beginning))
                     (and (use-region-p) (region-end))))
  (let* ((server (assistant-ls--server))
         (from (eglot--pos-to-lsp-position (or beg (point))))
         (params `(:text ,text
                   ,@(when buffer-file-name
                       `(:textDocument ,(eglot--TextDocumentIdentifier)
                         :range (:start ,from
                                 :end ,(if end
                                           (eglot--pos-to-lsp-position end)
                                         from)))))))
    (if (not (called-interactively-p 'any))
        (assistant-ls--offer server text
                             (assistant-ls--request server :assistant/ask params))
      (let ((buffer (current-buffer))
            ;; The input so far: any more when the answers come, and the
            ;; user has gone on with something else.
            (mark (assistant-ls--asked)))
        (assistant-ls--send
         server :assistant/ask params
         ;; Out of the process filter before asking the user anything.
         (lambda (answer)
           (run-at-time 0 nil
                        (lambda ()
                          (with-current-buffer (if (buffer-live-p buffer)
                                                   buffer
                                                 (current-buffer))
                            (if (and (assistant-ls--prompts-p answer)
                                     (assistant-ls--busy-p mark))
                                (assistant-ls--wait server text answer buffer)
                              (assistant-ls--offer server text answer)))
                          (assistant-ls--keep-outcome))))
         (lambda (error)
           (if (eql (plist-get error :code) assistant-ls--request-cancelled)
               (message "assistant-ls: ask cancelled; nothing applied")
             (message "assistant-ls: ask failed: %s"
                      (plist-get error :message)))
           (assistant-ls--keep-outcome))))
      (message "%s" assistant-ls--asking)
      nil)))

(defun assistant-ls--usable (answer)
  "The responses of ANSWER that can be applied or shown."
  (seq-filter (lambda (r) (or (plist-get r :edit)
                              (assistant-ls--text-answer-p r)))
              (plist-get answer :responses)))

(defun assistant-ls--prompts-p (answer)
  "Whether using ANSWER asks the user to choose (not one text answer)."
  (let ((usable (assistant-ls--usable answer)))
    (and usable
         (not (and (null (cdr usable))
                   (assistant-ls--text-answer-p (car usable)))))))

(defun assistant-ls--busy-p (mark)
  "Whether a prompt opened now would take keys meant for something else.
The user typed since MARK (`num-nonmacro-input-events' when they
asked), has input pending, is in the minibuffer, or records or runs a
keyboard macro (the prompt's keys would land in it)."
  (or (> num-nonmacro-input-events mark)
      (input-pending-p)
      (> (minibuffer-depth) 0)
      (active-minibuffer-window)
      executing-kbd-macro
      defining-kbd-macro))

(defvar assistant-ls--waiting nil
  "Answers that came while the user was typing, for `assistant-ls-answers'.
A list (SERVER TEXT ANSWER BUFFER); a newer request's replace them.
For an edit declined unseen, TEXT is its label and ANSWER
\=(:interactionId I :responseId R :edit t).")

(defun assistant-ls--waiting-hint ()
  "The line that says which answers wait and how to choose."
  (pcase-let* ((`(,_server ,text ,answer ,_buffer) assistant-ls--waiting)
               (count (length (assistant-ls--usable answer))))
    (if (plist-get answer :edit)
        (format "assistant-ls: an edit for \"%s\" is waiting: M-x assistant-ls-answers to see it"
                (string-remove-prefix "Assistant: " text))
      (format "assistant-ls: %d answer%s for \"%s\" %s ready: M-x assistant-ls-answers to choose"
            count (if (= count 1) "" "s") (truncate-string-to-width text 40 nil nil "...")
            (if (= count 1) "is" "are")))))

(defvar assistant-ls--reminder nil
  "The idle timer that says again which answers wait.")

(defun assistant-ls--wait (server text answer buffer)
  "Keep ANSWER (from SERVER, for TEXT asked in BUFFER) for later and say so.
The keys typed next clear the echo area, so the line is said again the
first time Emacs is idle after them."
  (setq assistant-ls--waiting (list server text answer buffer))
  (message "%s (arrived while you were typing)" (assistant-ls--waiting-hint))
  (when (timerp assistant-ls--reminder)
    (cancel-timer assistant-ls--reminder))
  (let ((typed num-nonmacro-input-events))
    (setq assistant-ls--reminder
          (run-with-idle-timer
           2 t
           (lambda ()
             (cond ((not (eq (nth 2 assistant-ls--waiting) answer))
                    (cancel-timer assistant-ls--reminder))
                   ((and (> num-nonmacro-input-events typed)
                         (not (active-minibuffer-window)))
                    (cancel-timer assistant-ls--reminder)
                    (message "%s" (assistant-ls--waiting-hint)))))))))

;;;###autoload
(defun assistant-ls-answers ()
  "Choose among the answers that came while you were typing.
An `assistant-ls-ask' whose answers arrive while you type, or are in the
minibuffer, opens no prompt over your keys: they wait for this command.
Quitting its prompt keeps them waiting; Discard drops them.  An edit to
preview that came then is applied anew, onto the text as it is now,
through the preview."
  (interactive)
  (let ((waiting assistant-ls--waiting))
    (unless waiting
      (user-error "assistant-ls: no answers are waiting"))
    (setq assistant-ls--waiting nil)
    (pcase-let ((`(,server ,text ,answer ,buffer) waiting))
      (with-current-buffer (if (buffer-live-p buffer) buffer (current-buffer))
        (condition-case nil
            (if (plist-get answer :edit)
                (assistant-ls--apply-again server answer)
              (assistant-ls--offer server text answer t))
          (quit (setq assistant-ls--waiting waiting)
                (message "assistant-ls: still waiting: M-x assistant-ls-answers to choose")
                nil))))))

(defun assistant-ls--offer (server text answer &optional discardable)
  "Use ANSWER, the `assistant/ask' result from SERVER for TEXT.
A lone text answer is shown; several candidates are offered, the
agents that failed named in the prompt, and with DISCARDABLE a Discard
choice.  Without DISCARDABLE, quitting the prompt (C-g) discards them;
with it, the quit is the caller's (the answers keep waiting).  Returns the
`assistant/apply' result, the answer buffer, the `assistant/discard'
result, or ANSWER when there is nothing to use."
  (let* ((id (plist-get answer :interactionId))
         (responses (plist-get answer :responses))
         (usable (assistant-ls--usable answer))
         (failures (assistant-ls--failures responses))
         (show (lambda (response)
                 ;; The trace learns that the answer was used (shown here).
                 (jsonrpc-async-request
                  server :assistant/apply
                  `(:interactionId ,id :responseId ,(plist-get response :id))
                  :success-fn #'ignore :error-fn #'ignore)
                 (prog1 (assistant-ls--show-answer
                         (assistant-ls--ask-title (plist-get answer :task) text)
                         (plist-get response :text)
                         (plist-get response :locations))
                   ;; Shown here, not by the server, which warns of the
                   ;; failed agents when it applies an answer.  Either
                   ;; way it replaces "asking...", which is over.
                   (if failures
                       (message "assistant-ls: Used the answer of %s; %s."
                                (plist-get (plist-get response :agent) :name)
                                (string-join failures "; "))
                     (message "assistant-ls: answer shown in %s"
                              assistant-ls-answer-buffer))))))
    (setq assistant-ls--last
          (cons server (list :id id :responses responses)))
    (cond
     ((null usable)
      (message "assistant-ls: %s"
               (or (plist-get answer :message) "no answer to apply"))
      answer)
     ((and (null (cdr usable)) (assistant-ls--text-answer-p (car usable)))
      (funcall show (car usable)))
     (t
      (let* ((choices (append (mapcar (lambda (r)
                                        (cons (assistant-ls--label r) r))
                                      usable)
                              (when discardable '(("Discard" . discard)))))
             (prompt (format "%s (%s, %d candidate%s%s): "
                             (if (seq-some #'assistant-ls--text-answer-p usable)
                                 "Use"
                               "Apply")
                             (plist-get answer :task) (length usable)
                             (if (cdr usable) "s" "")
                             (if failures
                                 (concat "; " (string-join failures "; "))
                               "")))
             (picked (condition-case nil
                         (cdr (assoc (completing-read prompt choices nil t nil nil
                                                      (caar choices))
                                     choices))
                       ;; Waiting answers stay waiting on C-g
                       ;; (`assistant-ls-answers'); the first prompt's
                       ;; C-g turns them down.
                       (quit (if discardable (signal 'quit nil) 'discard)))))
        (cond
         ((eq picked 'discard)
          ;; The trace records it as such, rather than as answers
          ;; nobody looked at.
          (prog1 (assistant-ls--request server :assistant/discard
                                        `(:interactionId ,id))
            (message "assistant-ls: discarded; nothing applied")))
         ((assistant-ls--text-answer-p picked)
          (funcall show picked))
         (t
          ;; The user has just chosen this edit: Eglot need not ask again.
          (let ((result (let ((eglot-confirm-server-initiated-edits nil))
                          (assistant-ls--request
                           server :assistant/apply
                           `(:interactionId ,id
                             :responseId ,(plist-get picked :id))))))
            (unless (assistant-ls--wait-declined
                     server `(:interactionId ,id :responseId ,(plist-get picked :id))
                     result)
              (message "assistant-ls: %s" (or (plist-get result :message)
                                              (plist-get result :outcome))))
            result))))))))

;;;###autoload
(defun assistant-ls-cancel ()
  "Stop what the assistant is doing for this Emacs.
Sends `$/cancelRequest' for the requests in flight (an
`assistant-ls-ask' under way) and `window/workDoneProgress/cancel' for
the work the server reports progress of (a code action, with an Eglot
that declares progress).  The model's request is closed, nothing is
applied, and the trace records the run as cancelled."
  (interactive)
  (let (stopped)
    (dolist (entry assistant-ls--in-flight)
      (pcase-let ((`(,server ,id ,method) entry))
        (assistant-ls--cancel-request server id)
        (push method stopped)))
    (maphash (lambda (key title)
               (when (jsonrpc-running-p (car key))
                 (jsonrpc-notify (car key) :window/workDoneProgress/cancel
                                 `(:token ,(cdr key))))
               (push title stopped))
             assistant-ls--progress)
    (setq assistant-ls--in-flight nil)
    (clrhash assistant-ls--progress)
    (if stopped
        (message "assistant-ls: cancelling %s"
                 (string-join (delete-dups (nreverse stopped)) ", "))
      (message "assistant-ls: nothing to cancel"))))

(defun assistant-ls--describe-response (response)
  "Insert RESPONSE of an interaction, indented."
  (let ((agent (plist-get response :agent))
        (notes (delq nil
                     (list (and (eq (plist-get response :used) t) "used")
                           (plist-get response :outcome)
                           (when-let ((r (plist-get response :rating)))
                             (format "rated %s" r))
                           (when-let ((at (plist-get response :revertedAt)))
                             (format "reverted %s" at))))))
    (insert (format "  - %s (%s%s): %s%s\n"
                    (plist-get agent :name) (plist-get agent :technology)
                    (if-let ((model (plist-get agent :model)))
                        (format ", %s" model)
                      "")
                    (plist-get response :status)
                    (if notes (concat ", " (string-join notes ", ")) "")))
    (when-let ((problem (plist-get response :error)))
      (insert (format "      error: %s\n" problem)))
    (seq-doseq (remark (plist-get response :feedback))
      (insert (format "      remark: %s\n" remark)))
    (let ((text (string-trim-right (or (plist-get response :text) ""))))
      (unless (string-empty-p text)
        (insert (replace-regexp-in-string "^" "      " text) "\n")))))

(defun assistant-ls--place-text (place context)
  "Where PLACE (the server's `TracePlace' of an interaction) is, and what.
CONTEXT is the interaction's context, which names the file it was
asked in."
  (let* ((start (plist-get (plist-get place :range) :start))
         (path (eglot--uri-to-path (plist-get place :uri)))
         (root (and assistant-ls--trace-server
                    (project-root (eglot--project assistant-ls--trace-server))))
         (shown (if (and root (file-in-directory-p path root))
                    (file-relative-name path root)
                  (abbreviate-file-name path)))
         (more (or (plist-get place :more) 0)))
    (pcase (plist-get place :kind)
      ("cited"
       (format "%s:%d, cites %s%s" shown (1+ (plist-get start :line))
               (or (plist-get place :label) "a place")
               (if (> more 0) (format " (+%d more)" more) "")))
      ("askedFrom"
       (format "%s, asked here, cites nothing"
               (or (plist-get (plist-get context :askedFrom) :relativePath) shown)))
      ("about" (format "%s:%d, the code it was about" shown (1+ (plist-get start :line))))
      (_ (format "%s:%d, its code" shown (1+ (plist-get start :line)))))))

(defun assistant-ls--visit (place)
  "Open PLACE (a `TracePlace') in another window, point at its start."
  (let* ((start (plist-get (plist-get place :range) :start))
         (marker (xref-location-marker
                  (xref-make-file-location
                   (eglot--uri-to-path (plist-get place :uri))
                   (1+ (plist-get start :line))
                   (plist-get start :character)))))
    (pop-to-buffer (marker-buffer marker))
    (goto-char marker)))

(defun assistant-ls--describe (interaction)
  "Insert INTERACTION, tagged so that rate and revert find it at point."
  (let ((start (point))
        (context (plist-get interaction :context))
        (class (plist-get interaction :classification)))
    (insert (propertize (format "Interaction %s" (plist-get interaction :id))
                        'face 'bold)
            "\n")
    (insert (format "  %s by %s (%s), from %s\n"
                    (plist-get interaction :timestamp)
                    (plist-get interaction :user)
                    (plist-get interaction :role)
                    (plist-get interaction :source)))
    (insert (format "  Asked: %s\n" (plist-get interaction :text)))
    (insert (format "  Task: %s%s\n" (plist-get interaction :task)
                    (if class
                        (format " (by %s, confidence %.2f)"
                                (plist-get class :by)
                                (plist-get class :confidence))
                      "")))
    (when-let ((symbol (plist-get context :symbol)))
      (insert (format "  Symbol: %s%s\n" symbol
                      (if-let ((resource (plist-get context :resource)))
                          (format " in %s" (plist-get resource :relativePath))
                        ""))))
    (when-let ((note (plist-get interaction :message)))
      (insert (format "  Message: %s\n" note)))
    (when-let ((place (plist-get interaction :place)))
      (insert "  Leads to: ")
      (insert-text-button (assistant-ls--place-text place context)
                          'action (lambda (_button) (assistant-ls--visit place))
                          'follow-link t
                          'help-echo "RET: open this place in the code")
      (insert "\n"))
    (seq-doseq (response (plist-get interaction :responses))
      (assistant-ls--describe-response response))
    (insert "\n")
    (put-text-property start (point) 'assistant-ls-interaction interaction)))

;;;###autoload
(defun assistant-ls-trace (&optional pos newest)
  "Show the assistant interactions behind the code at POS (or point).
With NEWEST (a prefix argument), or when none produced the code
there, show the newest interactions instead.  They are shown in the
buffer `*assistant-ls trace*', where `assistant-ls-rate' and
`assistant-ls-revert' act on the interaction at point, and RET on
its \"Leads to\" line opens where it leads: its code, the code it
was about, or, for a question about the workspace, the first place
its answer cites.  Returns that buffer, or nil when the trace holds
no interaction."
  (interactive (list nil current-prefix-arg))
  (let* ((server (assistant-ls--server))
         (here (unless newest
                 (assistant-ls--interactions-at server (or pos (point)))))
         (interactions
          (or here
              (append (plist-get (assistant-ls--request
                                  server :assistant/trace '(:limit 50))
                                 :interactions)
                      nil)))
         (source (buffer-name)))
    (cond
     ((null interactions)
      (message "assistant-ls: no interaction in the trace")
      nil)
     (t
      (unless (or here newest)
        (message "assistant-ls: no interaction produced the code here; listing the newest"))
      (with-current-buffer (get-buffer-create "*assistant-ls trace*")
        (let ((inhibit-read-only t))
          (erase-buffer)
          (special-mode)
          (setq assistant-ls--trace-server server)
          (insert (if here
                      (format "Interactions behind the code at point in %s\n\n"
                              source)
                    "The newest interactions\n\n"))
          (mapc #'assistant-ls--describe interactions)
          (goto-char (point-min))
          (forward-line 2))
        (display-buffer (current-buffer))
        (current-buffer))))))

;;;###autoload
(defun assistant-ls-rate (rating &optional comment)
  "Rate an answer RATING: \"up\", \"down\", or nil to withdraw a rating.
COMMENT, when non-nil, is kept with the answer's feedback.  The answer
is the one behind the code at point (in a trace buffer: the interaction
at point), else one of the last `assistant-ls-ask'."
  (interactive
   (let ((choice (completing-read "Rate: " '("up" "down" "withdraw") nil t)))
     (list (unless (equal choice "withdraw") choice)
           (let ((remark (read-string "Remark (optional): ")))
             (unless (string-empty-p remark) remark)))))
  (pcase-let* ((`(,server . ,interaction) (assistant-ls--context))
               (response (assistant-ls--choose-response interaction))
               (result (assistant-ls--request
                        server :assistant/rate
                        `(:interactionId ,(plist-get interaction :id)
                          :responseId ,(plist-get response :id)
                          :rating ,rating
                          ,@(when comment `(:comment ,comment))))))
    (message "assistant-ls: %s rated %s"
             (plist-get (plist-get response :agent) :name)
             (or rating "(withdrawn)"))
    result))

;;;###autoload
(defun assistant-ls-revert ()
  "Undo what an interaction inserted, when the code is still as inserted.
The interaction is the one behind the code at point (in a trace buffer:
the interaction at point), else the last `assistant-ls-ask'."
  (interactive)
  (pcase-let* ((`(,server . ,interaction) (assistant-ls--context))
               (result (let ((eglot-confirm-server-initiated-edits nil))
                         (assistant-ls--request
                          server :assistant/revert
                          `(:interactionId ,(plist-get interaction :id))))))
    (message "assistant-ls: %s" (plist-get result :message))
    result))

;;;; Agents

(defconst assistant-ls-agents-buffer "*assistant-ls agents*"
  "The buffer `assistant-ls-agents' lists the agents in.")

(defun assistant-ls--agent-line (agent)
  "AGENT, from `assistant/agents', as a line: name, technology, model, tasks."
  (format "%s (%s%s): %s"
          (plist-get agent :name) (plist-get agent :technology)
          (if-let ((model (plist-get agent :model))) (concat " " model) "")
          (string-join (append (plist-get agent :tasks) nil) ", ")))

;;;###autoload
(defun assistant-ls-agents ()
  "List the agents the server runs and the settings that disabled any.
The echo area names them (\"agents: doc-offline, ...\", with the
count of settings problems); the buffer `*assistant-ls agents*' has
that line, then a line per agent with the tasks it serves, and one
per problem.  Returns that buffer."
  (interactive)
  (let* ((result (assistant-ls--request (assistant-ls--server) :assistant/agents
                                        (make-hash-table)))
         (agents (append (plist-get result :agents) nil))
         (problems (append (plist-get result :problems) nil))
         (head (format "agents: %s%s"
                       (if agents
                           (mapconcat (lambda (agent) (plist-get agent :name)) agents ", ")
                         "none")
                       (if problems
                           (format "; %d setting problem%s" (length problems)
                                   (if (cdr problems) "s" ""))
                         ""))))
    (with-current-buffer (get-buffer-create assistant-ls-agents-buffer)
      (let ((inhibit-read-only t))
        (erase-buffer)
        (special-mode)
        ;; A settings problem names a path or an URL: wrapped at words, whole.
        (visual-line-mode 1)
        (insert head "\n\n")
        (dolist (agent agents)
          (insert (assistant-ls--agent-line agent) "\n"))
        (dolist (problem problems)
          (insert (format "problem: %s\n" problem)))
        (goto-char (point-min)))
      (display-buffer (current-buffer))
      (message "assistant-ls: %s" head)
      (current-buffer))))

;;;; Checks

;;;###autoload
(defun assistant-ls-check-types ()
  "Type-check the whole project, with the unsaved buffers, on the server.
The errors arrive as Flymake diagnostics of the files they are in and
follow their text as it changes; the count is shown once done."
  (interactive)
  (assistant-ls--send (assistant-ls--server) :workspace/executeCommand
                      '(:command "assistant.checkTypes" :arguments [])
                      (lambda (result)
                        (message "assistant-ls: %s" (plist-get result :message)))
                      (lambda (error)
                        (message "assistant-ls: type-check failed: %s"
                                 (plist-get error :message))))
  (message "assistant-ls: type-checking the project..."))

;;;; Preview

(defconst assistant-ls-preview-buffer "*assistant-ls preview*"
  "The buffer an edit is shown in before it lands.")

(cl-defmethod eglot-client-capabilities :around ((_server assistant-ls-server))
  "Eglot's capabilities, and that edits may carry change annotations.
The server then marks the edits to show before they land (its
`preview' setting)."
  (let* ((capabilities (cl-call-next-method))
         (workspace (plist-get capabilities :workspace))
         (edit (plist-get workspace :workspaceEdit)))
    ;; New lists: Eglot's hold constants that every server shares.
    (setq capabilities
          (plist-put (copy-sequence capabilities) :workspace
                     (plist-put (copy-sequence workspace) :workspaceEdit
                                (append edit
                                        (list :changeAnnotationSupport
                                              (list :groupsOnLabel :json-false))))))
    ;; Eglot 1.9 takes no progress; this client shows it then
    ;; (`assistant-ls--show-progress'): a model may work for minutes.
    (if (plist-get (plist-get capabilities :window) :workDoneProgress)
        capabilities
      (plist-put capabilities :window
                 (plist-put (copy-sequence (plist-get capabilities :window))
                            :workDoneProgress t)))))

(defun assistant-ls--eglot-shows-progress ()
  "Whether Eglot shows the server's progress itself (1.10 and later)."
  (boundp 'eglot-report-progress))

(cl-defmethod eglot-handle-request
  ((_server assistant-ls-server) (_method (eql window/workDoneProgress/create))
   &key _token &allow-other-keys)
  "Accept a progress token the server makes (Eglot 1.9 knows no such request)."
  nil)

(defvar assistant-ls--progress-shown nil
  "The progress line this client last put in the echo area, or nil.")

(defun assistant-ls--show-progress (title value)
  "Show the progress VALUE of the work TITLE in the echo area, for Eglot 1.9.
The first line is kept in *Messages*, the updates are not.  Progress
never covers the minibuffer, a prompt or another message: only an
empty echo area or the last progress line is replaced."
  (let* ((kind (plist-get value :kind))
         (detail (plist-get value :message))
         (percentage (plist-get value :percentage))
         (line (format "assistant-ls: %s%s%s (M-x assistant-ls-cancel stops it)"
                       title
                       (if (and (stringp detail) (> (length detail) 0)) (concat ": " detail) "")
                       (if (numberp percentage) (format " (%d%%)" percentage) ""))))
    (cond ((equal kind "end")
           (when (and assistant-ls--progress-shown
                      (equal (current-message) assistant-ls--progress-shown))
             (message nil))
           (setq assistant-ls--progress-shown nil))
          ((or (active-minibuffer-window)
               (not (member (current-message) (list nil "" assistant-ls--progress-shown))))
           nil)
          (t (let ((message-log-max (and (equal kind "begin") message-log-max)))
               (setq assistant-ls--progress-shown (message "%s" line)))))))

(cl-defmethod eglot-execute-command
  ((server assistant-ls-server) command arguments)
  "Run COMMAND with ARGUMENTS on SERVER without waiting for it.
A task can take longer than Eglot's 10 s wait, and its edit may wait
for the user in a preview: a synchronous request would give up, or
unwind the preview, before the server has its answer."
  (let ((name (format "%s" command))
        (buffer (current-buffer)))
    ;; The action chosen is the user's request: the keys that chose it do
    ;; not hold back the edit it leads to.
    (assistant-ls--asked)
    (jsonrpc-async-request
     server :workspace/executeCommand
     `(:command ,name :arguments ,arguments)
     :success-fn (lambda (result)
                   ;; Eglot's mode line counts the request until it is redrawn.
                   (force-mode-line-update t)
                   (let ((note (and (listp result) (plist-get result :message))))
                     (when (and (stringp note)
                                (not (and (listp result)
                                          (assistant-ls--wait-declined
                                           server result result buffer)))
                                (not (equal (plist-get result :outcome)
                                            "discarded")))
                       (message "assistant-ls: %s" note))))
     :error-fn (lambda (error)
                 (force-mode-line-update t)
                 (message "assistant-ls: %s failed: %s"
                          name (plist-get error :message)))
     :timeout-fn #'ignore
     :timeout assistant-ls-request-timeout)
    nil))

(defun assistant-ls--confirmation (edit)
  "The change annotation of EDIT that asks for confirmation, or nil."
  (cl-loop for (_id annotation) on (plist-get edit :changeAnnotations)
           by #'cddr
           when (eq (plist-get annotation :needsConfirmation) t)
           return annotation))

(defun assistant-ls--document-text (path created)
  "The text of PATH as the user has it: its buffer, else the file.
CREATED means the edit creates the file, so it starts empty."
  (cond (created "")
        ((find-buffer-visiting path)
         (with-current-buffer (find-buffer-visiting path)
           (save-restriction (widen) (buffer-substring-no-properties
                                      (point-min) (point-max)))))
        ((file-exists-p path)
         (with-temp-buffer (insert-file-contents path) (buffer-string)))
        (t "")))

(defun assistant-ls--edited-text (text edits)
  "TEXT with the LSP text EDITS applied (positions in UTF-16, as Eglot)."
  (with-temp-buffer
    (insert text)
    (let ((changes (mapcar (lambda (e)
                             (cons (eglot--range-region (plist-get e :range))
                                   (plist-get e :newText)))
                           edits)))
      ;; From the end, so the positions of the ones before stay true.
      (dolist (change (sort changes (lambda (a b) (> (caar a) (caar b)))))
        (goto-char (caar change))
        (delete-region (caar change) (cdar change))
        (insert (cdr change))))
    (buffer-string)))

(defun assistant-ls--unified-diff (old new name created)
  "The unified diff of OLD and NEW, the texts of NAME, from `diff-command'."
  (let ((old-file (make-temp-file "assistant-ls-old"))
        (new-file (make-temp-file "assistant-ls-new"))
        (coding-system-for-write 'utf-8-unix)
        (coding-system-for-read 'utf-8-unix))
    (unwind-protect
        (progn
          (write-region old nil old-file nil 'silent)
          (write-region new nil new-file nil 'silent)
          (with-temp-buffer
            (call-process diff-command nil t nil "-u"
                          "--label" (if created "/dev/null" (concat "a/" name))
                          "--label" (concat "b/" name)
                          old-file new-file)
            (buffer-string)))
      (delete-file old-file)
      (delete-file new-file))))

(defun assistant-ls--text-edits (changes)
  "The text edits of CHANGES as (PATH EDITS VERSION CREATED)."
  (let ((created (delq nil (mapcar (lambda (c)
                                     (when (equal (plist-get c :kind) "create")
                                       (eglot--uri-to-path (plist-get c :uri))))
                                   changes))))
    (delq nil
          (mapcar (lambda (change)
                    (unless (plist-get change :kind)
                      (let* ((document (plist-get change :textDocument))
                             (path (eglot--uri-to-path (plist-get document :uri))))
                        (list path
                              (mapcar (lambda (e)
                                        (list :range (plist-get e :range)
                                              :newText (plist-get e :newText)))
                                      (plist-get change :edits))
                              (plist-get document :version)
                              (member path created)))))
                  changes))))

(defun assistant-ls--moved-document (prepared)
  "The first file of PREPARED whose buffer changed since the edit was made."
  (cl-loop for (path _edits version) in prepared
           for buffer = (and version (find-buffer-visiting path))
           when (and buffer
                     (not (equal version (buffer-local-value
                                          'eglot--versioned-identifier
                                          buffer))))
           return path))

(defun assistant-ls--show-preview (prepared title)
  "Show the diff of PREPARED with TITLE; return its window."
  (let ((root (or (ignore-errors (project-root (project-current)))
                  default-directory)))
    (with-current-buffer (get-buffer-create assistant-ls-preview-buffer)
      (let ((inhibit-read-only t))
        (erase-buffer)
        (pcase-dolist (`(,path ,edits ,_version ,created) prepared)
          (let ((old (assistant-ls--document-text path created)))
            (insert (assistant-ls--unified-diff
                     old (assistant-ls--edited-text old edits)
                     (file-relative-name path root) created))))
        (diff-mode)
        (setq buffer-read-only t)
        (setq header-line-format
              (concat " " title
                      "    a or RET: apply   q or d: discard   SPC DEL n p: move"))
        (goto-char (point-min)))
      (display-buffer (current-buffer)
                      '((display-buffer-below-selected display-buffer-at-bottom)
                        (window-height . fit-window-to-buffer))))))

(defun assistant-ls--choose (window)
  "Wait for the user's key in the preview WINDOW: t to apply, nil not to."
  (let ((prompt "Apply this edit? (a or RET: apply, q or d: discard) "))
    (with-selected-window window
      (catch 'choice
        (while t
          (let ((key (read-key prompt)))
            (cond ((memq key '(?a ?\r return)) (throw 'choice t))
                  ((memq key '(?q ?d ?\C-g ?\e escape)) (throw 'choice nil))
                  ((memq key '(?\s ?\C-v)) (ignore-errors (scroll-up)))
                  ((memq key '(?\d ?\M-v backspace)) (ignore-errors (scroll-down)))
                  ((eq key ?n) (ignore-errors (diff-hunk-next)))
                  ((eq key ?p) (ignore-errors (diff-hunk-prev))))))))))

(defun assistant-ls--apply-edits (changes prepared)
  "Apply the file creations of CHANGES and the text edits of PREPARED.
A new file is a buffer, an edited file its buffer: nothing is saved."
  (dolist (change changes)
    (when (equal (plist-get change :kind) "create")
      (let ((path (eglot--uri-to-path (plist-get change :uri))))
        (when (and (file-exists-p path)
                   (not (eq (plist-get (plist-get change :options) :overwrite) t)))
          (jsonrpc-error "%s already exists" path))
        (find-file-noselect path))))
  (pcase-dolist (`(,path ,edits ,version) prepared)
    (with-current-buffer (find-file-noselect path)
      (eglot--apply-text-edits edits version))))

(defun assistant-ls--hold-output (server)
  "Hold what SERVER sends until the preview is answered.
Returns the function that lets it through again.  The request being
answered runs inside the connection's process filter, which would
otherwise be entered again, mid-message, by output read while the user
chooses."
  (let* ((process (jsonrpc--process server))
         (filter (process-filter process))
         (held nil))
    (set-process-filter process (lambda (_process output) (push output held)))
    (lambda ()
      ;; From a timer, once the filter that called the handler has finished.
      (run-at-time 0 nil
                   (lambda ()
                     (set-process-filter process filter)
                     (when (and held (process-live-p process))
                       (funcall filter process
                                (apply #'concat (nreverse held)))))))))

(defconst assistant-ls--typing-reason
  "it came while you were typing, so it was not shown and nothing changed; the answer stays in the trace"
  "Why an edit was not applied when it came while the user typed.")

(defvar assistant-ls--declined nil
  "The label of the last edit the preview declined unseen, or nil.")

(defun assistant-ls--wait-declined (server ids result &optional buffer)
  "Keep the answer of IDS for `assistant-ls-answers' if its edit was declined.
RESULT is the answer of the request that led to the edit, from SERVER,
made in BUFFER (by default the current one); IDS has its :interactionId
and :responseId.  Returns non-nil when the edit came while the user
typed and so waits now."
  (let ((label assistant-ls--declined))
    (when (and label
               (not (eq (plist-get result :applied) t))
               (stringp (plist-get ids :interactionId))
               (stringp (plist-get ids :responseId)))
      (setq assistant-ls--declined nil)
      (assistant-ls--wait server label
                          (list :interactionId (plist-get ids :interactionId)
                                :responseId (plist-get ids :responseId)
                                :edit t)
                          (or buffer (current-buffer)))
      t)))

(defun assistant-ls--apply-again (server ids)
  "Apply the answer of IDS (from SERVER) anew, through the preview."
  (let ((result (assistant-ls--request
                 server :assistant/apply
                 `(:interactionId ,(plist-get ids :interactionId)
                   :responseId ,(plist-get ids :responseId)))))
    (unless (equal (plist-get result :outcome) "discarded")
      (message "assistant-ls: %s" (or (plist-get result :message)
                                      (if (eq (plist-get result :applied) t)
                                          "applied"
                                        (plist-get result :outcome)))))
    result))

(cl-defmethod eglot-handle-request
  ((server assistant-ls-server) (_method (eql workspace/applyEdit))
   &key label edit &allow-other-keys)
  "Apply EDIT; one the server marks for confirmation is shown first.
The diff opens in `assistant-ls-preview-buffer'; the server gets its
answer once the user pressed a key to apply or discard it.  An edit
that comes while the user types opens neither the preview nor Eglot's
question, which would read the next keys: it waits for
`assistant-ls-answers'."
  (let ((annotation (assistant-ls--confirmation edit)))
    (cond
     ;; Eglot's "Proceed? (y or n)" would take the keys being typed, and a
     ;; y among them would apply the edit unseen.
     ((and (not annotation)
           eglot-confirm-server-initiated-edits
           (assistant-ls--busy-p assistant-ls--asked-at))
      (setq assistant-ls--declined (or label "Assistant edit"))
      `(:applied :json-false :failureReason ,assistant-ls--typing-reason))
     ((not annotation)
      (cl-call-next-method))
     (t
      (let* ((changes (append (plist-get edit :documentChanges) nil))
             (prepared (assistant-ls--text-edits changes))
             (moved (assistant-ls--moved-document prepared))
             (description (plist-get annotation :description))
             (title (concat (or (plist-get annotation :label) label "Assistant edit")
                            (if (and (stringp description)
                                     (not (string-empty-p description)))
                                (format " (%s)" description)
                              ""))))
        (cond
         (moved
          `(:applied :json-false :failureReason ,(format "%s changed since the edit was made" moved)))
         ;; The preview would read the user's next keys, and an a among
         ;; them would apply an edit they never saw.  Eglot answers the
         ;; server when this returns, so it cannot wait: not applied, and
         ;; the request that led to it offers the answer again.
         ((assistant-ls--busy-p assistant-ls--asked-at)
          (setq assistant-ls--declined (or (plist-get annotation :label) label "Assistant edit"))
          `(:applied :json-false :failureReason ,assistant-ls--typing-reason))
         (t
          (let* ((release (assistant-ls--hold-output server))
                 (window nil)
                 (accepted
                  (unwind-protect
                      ;; Timers wait too: one of a synchronous request
                      ;; around this one would unwind the choice.
                      (let ((timer-list nil) (timer-idle-list nil))
                        (setq window (assistant-ls--show-preview prepared title))
                        (assistant-ls--choose window))
                    (when (window-live-p window) (quit-window t window))
                    (funcall release))))
            (cond ((not accepted)
                   (message "assistant-ls: discarded; nothing changed")
                   '(:applied :json-false))
                  (t (condition-case oops
                         (progn (assistant-ls--apply-edits changes prepared)
                                '(:applied t))
                       (error `(:applied :json-false
                                :failureReason ,(error-message-string oops))))))))))))))

;;;; Inline completion (ghost text)

;; Eglot has no inline completion: this minor mode asks the server for
;; `textDocument/inlineCompletion' once typing pauses, and shows the
;; suggestion at point in `assistant-ls-inline-face'.

(defcustom assistant-ls-inline-enable t
  "Whether `assistant-ls-setup' turns on `assistant-ls-inline-mode'.
It is turned on in the buffers Eglot manages with assistant-ls."
  :type 'boolean)

(defcustom assistant-ls-inline-delay 0.2
  "Seconds of idle time after a change before a suggestion is asked for.
The server waits a little more (its `completion.debounceMs')."
  :type 'number)

(defface assistant-ls-inline-face '((t :inherit shadow))
  "The face of the suggestion shown at point.")

(defvar assistant-ls-inline-active-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "TAB") #'assistant-ls-inline-accept)
    (define-key map (kbd "<tab>") #'assistant-ls-inline-accept)
    (define-key map (kbd "M-<right>") #'assistant-ls-inline-accept-word)
    (define-key map (kbd "M-<down>") #'assistant-ls-inline-accept-line)
    ;; Not M-[ nor M-]: in a terminal ESC [ starts the escape sequence of
    ;; M-<right> and other keys (and ESC ] the terminal's replies), which a
    ;; binding there would cut short.
    (define-key map (kbd "M-n") #'assistant-ls-inline-next)
    (define-key map (kbd "M-p") #'assistant-ls-inline-previous)
    (define-key map (kbd "C-g") #'assistant-ls-inline-dismiss)
    map)
  "Keys while a suggestion is shown; otherwise they do what they always do.")

(defvar assistant-ls-inline-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "M-n") #'assistant-ls-inline-next)
    map)
  "Keys of `assistant-ls-inline-mode': \\[assistant-ls-inline-next] asks for a suggestion now.")

(defvar-local assistant-ls-inline--state nil
  "The suggestion shown, a plist: :items (each (TEXT . ITEM)), :index,
:taken (characters of the item's text already inserted by accept word
or line), :overlay, :server.")

(defvar-local assistant-ls-inline--showing nil
  "Non-nil while a suggestion is shown: `assistant-ls-inline-active-map' is on.")

(defvar-local assistant-ls-inline--pending nil
  "The (SERVER . ID) of the request in flight, cancelled by the next one.")

(defvar-local assistant-ls-inline--timer nil
  "The idle timer of the next request.")

(defvar-local assistant-ls-inline--tick nil
  "`buffer-chars-modified-tick' after the last command.")

(defvar-local assistant-ls-inline--own-tick nil
  "`buffer-chars-modified-tick' after the mode's own insertion, which asks nothing.")

(defvar-local assistant-ls-inline--asking nil
  "Non-nil while a request asked for with a key waits, its message shown.")

(defconst assistant-ls-inline--asking-text "assistant-ls: asking the model..."
  "Said while a request asked for with a key waits: a local model can
take half a minute to load.")

(add-to-list 'minor-mode-map-alist
             (cons 'assistant-ls-inline--showing assistant-ls-inline-active-map))

(defun assistant-ls--server-p (server)
  "Whether SERVER is an assistant-ls connection."
  (and server
       (seq-contains-p (plist-get (plist-get (eglot--capabilities server)
                                             :executeCommandProvider)
                                  :commands)
                       "assistant.acceptCompletion")))

;;;###autoload
(define-minor-mode assistant-ls-inline-mode
  "Ghost-text completions from assistant-ls in this buffer.
Once typing pauses for `assistant-ls-inline-delay', the server's
suggestion shows at point.  While one is shown (and only then):
\\<assistant-ls-inline-active-map>
  \\[assistant-ls-inline-accept]  accept it
  \\[assistant-ls-inline-accept-word]  accept its next word
  \\[assistant-ls-inline-accept-line]  accept its next line
  \\[assistant-ls-inline-next] \\[assistant-ls-inline-previous]  the next or previous suggestion (the server gives one)
  \\[assistant-ls-inline-dismiss]  dismiss it (so does moving point)
With none shown, \\<assistant-ls-inline-mode-map>\\[assistant-ls-inline-next] asks for one now.
Accepting runs the item's command, so the trace records it."
  :lighter nil
  (if assistant-ls-inline-mode
      (add-hook 'post-command-hook #'assistant-ls-inline--post-command nil t)
    (remove-hook 'post-command-hook #'assistant-ls-inline--post-command t)
    (assistant-ls-inline-dismiss)))

(defun assistant-ls-inline--maybe-enable ()
  "Turn on `assistant-ls-inline-mode' where Eglot manages with assistant-ls."
  (when (and assistant-ls-inline-enable (eglot-managed-p)
             (assistant-ls--server-p (eglot-current-server)))
    (assistant-ls-inline-mode 1)))

(defun assistant-ls-inline--undo-command-p (command)
  "Whether COMMAND undoes or redoes (Emacs's own, undo-tree, undo-fu, vundo...)."
  (and (symbolp command)
       (or (memq command '(undo undo-only undo-redo advertised-undo))
           (string-match-p "\\(?:\\`\\|-\\)\\(?:un\\|re\\)do\\(?:-\\|\\'\\)"
                           (symbol-name command)))))

(defun assistant-ls-inline--post-command ()
  "Ask again after a change, and hide the suggestion when point left it.
A change made by undo asks nothing: the suggestion it took out would
come back from the server's cache, and the next undo would redo it."
  (let ((tick (buffer-chars-modified-tick)))
    (cond ((and (not (eql tick assistant-ls-inline--tick))
                (not (eql tick assistant-ls-inline--own-tick)))
           (assistant-ls-inline-dismiss)
           (unless (assistant-ls-inline--undo-command-p this-command)
             (assistant-ls-inline--schedule)))
          ((and assistant-ls-inline--state
                (/= (point) (overlay-start (plist-get assistant-ls-inline--state :overlay))))
           (assistant-ls-inline-dismiss)))
    (setq assistant-ls-inline--tick tick)))

(defun assistant-ls-inline--schedule ()
  "Ask for a suggestion once Emacs has been idle `assistant-ls-inline-delay'."
  (when (timerp assistant-ls-inline--timer)
    (cancel-timer assistant-ls-inline--timer))
  (let ((buffer (current-buffer)))
    (setq assistant-ls-inline--timer
          (run-with-idle-timer assistant-ls-inline-delay nil
                               (lambda ()
                                 (when (buffer-live-p buffer)
                                   (with-current-buffer buffer
                                     (when (eq (window-buffer) buffer)
                                       (assistant-ls-inline-complete)))))))))

(defun assistant-ls-inline--text (item position)
  "What ITEM inserts at POSITION, or nil when it would replace text."
  (let ((text (plist-get item :insertText))
        (range (plist-get item :range)))
    (when (and (stringp text) (not (string-empty-p text))
               (or (null range)
                   (and (equal (plist-get range :start) position)
                        (equal (plist-get range :end) position))))
      text)))

(defun assistant-ls-inline-complete ()
  "Ask assistant-ls for a suggestion at point now.
The request before it, if still in flight, is cancelled; the answer is
shown only if the buffer and point have not changed since."
  (interactive)
  (let ((server (and (eglot-managed-p) (eglot-current-server))))
    (when (assistant-ls--server-p server)
      (assistant-ls-inline-dismiss)
      (let* ((buffer (current-buffer))
             (point (point))
             (position (eglot--pos-to-lsp-position))
             (invoked (called-interactively-p 'any))
             (params `(:textDocument ,(eglot--TextDocumentIdentifier)
                       :position ,position
                       :context (:triggerKind ,(if invoked 1 2))))
             (id nil))
        (setq id (assistant-ls--send
                  server :textDocument/inlineCompletion params
                  (lambda (result)
                    (when (buffer-live-p buffer)
                      (with-current-buffer buffer
                        (when (equal assistant-ls-inline--pending (cons server id))
                          (setq assistant-ls-inline--pending nil)
                          ;; The send flushed the buffer's changes, which left the tick as it is now.
                          (if (and (= (point) point)
                                   (eql (buffer-chars-modified-tick) assistant-ls-inline--tick))
                              (assistant-ls-inline--stop-asking
                               (unless (assistant-ls-inline--show server result position)
                                 "no suggestion here"))
                            (assistant-ls-inline--stop-asking))))))
                  (lambda (error)
                    (when (buffer-live-p buffer)
                      (with-current-buffer buffer
                        (when (equal assistant-ls-inline--pending (cons server id))
                          (setq assistant-ls-inline--pending nil)
                          (assistant-ls-inline--stop-asking
                           (format "no suggestion: %s" (plist-get error :message)))))))))
        (setq assistant-ls-inline--tick (buffer-chars-modified-tick))
        (setq assistant-ls-inline--pending (cons server id))
        ;; Only a request asked for with a key is announced; those made
        ;; while typing stay silent.
        (when invoked
          (setq assistant-ls-inline--asking t)
          (let ((message-log-max nil))
            (message "%s" assistant-ls-inline--asking-text)))))))

(defun assistant-ls-inline--stop-asking (&optional outcome)
  "Replace the message of a request asked for with a key by OUTCOME, or clear it.
Only while the message is still the mode's own: what the server said
meanwhile (`window/showMessage', say why it has nothing) stays."
  (when assistant-ls-inline--asking
    (setq assistant-ls-inline--asking nil)
    (when (equal (current-message) assistant-ls-inline--asking-text)
      (if outcome
          (message "assistant-ls: %s" outcome)
        (message nil)))))

(defun assistant-ls-inline--show (server result position)
  "Show the first usable item of RESULT from SERVER, asked at POSITION.
Return non-nil when there was one."
  (let ((items (delq nil (mapcar (lambda (item)
                                   (let ((text (assistant-ls-inline--text item position)))
                                     (and text (cons text item))))
                                 (append (if (plist-member result :items)
                                             (plist-get result :items)
                                           result)
                                         nil)))))
    (when items
      (setq assistant-ls-inline--state
            (list :items items :index 0 :taken 0 :server server
                  :overlay (make-overlay (point) (point) nil nil t)))
      (setq assistant-ls-inline--showing t)
      (assistant-ls-inline--render)
      t)))

(defun assistant-ls-inline--current ()
  "The (TEXT . ITEM) shown, or nil."
  (when assistant-ls-inline--state
    (nth (plist-get assistant-ls-inline--state :index)
         (plist-get assistant-ls-inline--state :items))))

(defun assistant-ls-inline--render ()
  "Draw what is left of the current suggestion at point.
Its first line follows point; the lines after it go below, and the
text after point follows the last of them, as it will once accepted."
  (let* ((rest (substring (car (assistant-ls-inline--current))
                          (plist-get assistant-ls-inline--state :taken)))
         (ghost (propertize rest 'face 'assistant-ls-inline-face))
         (overlay (plist-get assistant-ls-inline--state :overlay)))
    ;; The cursor stays before the suggestion, where the text goes.
    (put-text-property 0 1 'cursor t ghost)
    (move-overlay overlay (point) (point))
    (overlay-put overlay 'after-string ghost)))

(defun assistant-ls-inline-dismiss ()
  "Hide the suggestion and cancel a request in flight.
What accept word or line took of it is recorded now, as one partial
acceptance."
  (interactive)
  (when (timerp assistant-ls-inline--timer)
    (cancel-timer assistant-ls-inline--timer)
    (setq assistant-ls-inline--timer nil))
  (when assistant-ls-inline--pending
    (assistant-ls--cancel-request (car assistant-ls-inline--pending)
                                  (cdr assistant-ls-inline--pending))
    (setq assistant-ls-inline--pending nil))
  (assistant-ls-inline--stop-asking)
  (when assistant-ls-inline--state
    (let ((taken (plist-get assistant-ls-inline--state :taken))
          (current (assistant-ls-inline--current)))
      (when (> taken 0)
        (assistant-ls-inline--record (cdr current) (substring (car current) 0 taken)
                                     (string= (car current) (substring (car current) 0 taken))))
      (delete-overlay (plist-get assistant-ls-inline--state :overlay))))
  (setq assistant-ls-inline--state nil
        assistant-ls-inline--showing nil))

(defun assistant-ls-inline--record (item accepted whole)
  "Run ITEM's command for ACCEPTED, the whole text when WHOLE, else its start."
  (let ((command (plist-get item :command))
        (server (plist-get assistant-ls-inline--state :server)))
    (when (and command server (jsonrpc-running-p server))
      (assistant-ls--send
       server :workspace/executeCommand
       `(:command ,(plist-get command :command)
         :arguments ,(vconcat (plist-get command :arguments)
                              (unless whole `((:acceptedText ,accepted)))))
       #'ignore
       (lambda (error)
         (message "assistant-ls: recording the completion failed: %s"
                  (plist-get error :message)))))))

(defun assistant-ls-inline--take (piece)
  "Insert PIECE of the suggestion at point, as one undo step."
  (let* ((current (assistant-ls-inline--current))
         (taken (+ (plist-get assistant-ls-inline--state :taken) (length piece))))
    (undo-boundary)
    (insert piece)
    (undo-boundary)
    (setq assistant-ls-inline--own-tick (buffer-chars-modified-tick))
    (if (< taken (length (car current)))
        (progn (plist-put assistant-ls-inline--state :taken taken)
               (assistant-ls-inline--render))
      (assistant-ls-inline--record (cdr current) (car current) t)
      (delete-overlay (plist-get assistant-ls-inline--state :overlay))
      (setq assistant-ls-inline--state nil
            assistant-ls-inline--showing nil))))

(defun assistant-ls-inline--rest ()
  "What is left of the suggestion shown."
  (substring (car (assistant-ls-inline--current))
             (plist-get assistant-ls-inline--state :taken)))

(defun assistant-ls-inline-accept ()
  "Insert the suggestion and record it in the trace."
  (interactive)
  (when assistant-ls-inline--state
    (assistant-ls-inline--take (assistant-ls-inline--rest))))

(defun assistant-ls-inline-accept-word ()
  "Insert the next word of the suggestion; the rest stays shown."
  (interactive)
  (when assistant-ls-inline--state
    (let ((rest (assistant-ls-inline--rest)))
      (string-match "\\`\\(?:[[:space:]]*\\(?:\\sw\\|\\s_\\)+\\|[[:space:]]*[^[:space:]]+?\\(?:\\b\\|\\'\\)\\|[[:space:]]+\\)" rest)
      (assistant-ls-inline--take (match-string 0 rest)))))

(defun assistant-ls-inline-accept-line ()
  "Insert the suggestion up to and with its next line break."
  (interactive)
  (when assistant-ls-inline--state
    (let ((rest (assistant-ls-inline--rest)))
      (assistant-ls-inline--take
       (if (string-match "\\`\n?[^\n]*\n" rest) (match-string 0 rest) rest)))))

(defun assistant-ls-inline-next (&optional step)
  "Show the next suggestion (the previous with STEP -1).
With none shown, ask for one now.  assistant-ls answers one suggestion
at a time, and asking again at the same place gives the same one (its
cache): with one shown, say that there is no other."
  (interactive)
  (if (not assistant-ls-inline--state)
      (call-interactively #'assistant-ls-inline-complete)
    (let ((count (length (plist-get assistant-ls-inline--state :items))))
      (when (< count 2)
        (message "assistant-ls: no other suggestion"))
      (when (and (> count 1) (= 0 (plist-get assistant-ls-inline--state :taken)))
        (plist-put assistant-ls-inline--state :index
                   (mod (+ (plist-get assistant-ls-inline--state :index) (or step 1)) count))
        (assistant-ls-inline--render)))))

(defun assistant-ls-inline-previous ()
  "Show the previous suggestion."
  (interactive)
  (assistant-ls-inline-next -1))

(provide 'assistant-ls)

;;; assistant-ls.el ends here
