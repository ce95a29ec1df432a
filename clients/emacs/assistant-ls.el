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
;;   M-x assistant-ls-rate    thumb up or down (or withdraw), with a remark
;;   M-x assistant-ls-revert  undo what an interaction inserted
;;   M-x assistant-ls-cancel  stop what the assistant is doing (an ask in
;;                            flight, work the server reports progress of)
;;
;; Text answers (explanations, workspace questions), from the ask and from
;; code actions (`assistant/showAnswer'), open in `*assistant-ls answer*',
;; and the places they name in an xref buffer that jumps to the code.
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
(require 'xref)

(defgroup assistant-ls nil
  "Eglot client for the assistant-ls language server."
  :group 'eglot
  :prefix "assistant-ls-")

(defcustom assistant-ls-program '("assistant-ls" "--stdio")
  "How to start the server: the program and its arguments."
  :type '(repeat string))

(defcustom assistant-ls-modes
  '((tsx-ts-mode . "typescriptreact")
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
  :documentation "An assistant-ls connection: it shows text answers itself.")

(defun assistant-ls-eglot-entry ()
  "The `eglot-server-programs' entry for assistant-ls."
  (cons (mapcar (lambda (pair) (list (car pair) :language-id (cdr pair)))
                assistant-ls-modes)
        (cons 'assistant-ls-server assistant-ls-program)))

(cl-defmethod eglot-client-capabilities ((_server assistant-ls-server))
  "Eglot's capabilities, and that text answers come as a notification."
  (let ((capabilities (cl-call-next-method)))
    (plist-put capabilities :experimental '(:assistant (:showAnswer t)))))

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
                            eglot-server-programs))))

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

(defun assistant-ls--request (server method params)
  "Send METHOD with PARAMS to SERVER and return the result.
Waits for the answer; \[keyboard-quit] while waiting cancels the
request on the server too, and so does `assistant-ls-cancel' run from
a timer.  A cancelled request is a `user-error'."
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
  "Remember the cancellable progress of SERVER, for `assistant-ls-cancel'."
  (let ((key (cons server token))
        (kind (plist-get value :kind)))
    (cond ((and (equal kind "begin") (eq (plist-get value :cancellable) t))
           (puthash key (or (plist-get value :title) "assistant-ls")
                    assistant-ls--progress))
          ((equal kind "end") (remhash key assistant-ls--progress)))))

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

(defun assistant-ls--label (response)
  "A one-line label for RESPONSE: its agent and its first line of words."
  (let* ((lines (split-string (or (plist-get response :text) "") "\n"))
         (words (seq-find (lambda (l) (string-match-p "[[:alnum:]]" l)) lines))
         (line (string-trim (or words "") "[ \t/*#;-]+")))
    (format "%s: %s"
            (plist-get (plist-get response :agent) :name)
            (truncate-string-to-width line 70 nil nil "..."))))

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
            (push (cons agent (format "%s failed: %s" agent
                                      (or (plist-get response :error) status)))
                  failed)))))
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
      (let ((buffer (current-buffer)))
        (assistant-ls--send
         server :assistant/ask params
         ;; Out of the process filter before asking the user anything.
         (lambda (answer)
           (run-at-time 0 nil
                        (lambda ()
                          (with-current-buffer (if (buffer-live-p buffer)
                                                   buffer
                                                 (current-buffer))
                            (assistant-ls--offer server text answer)))))
         (lambda (error)
           (if (eql (plist-get error :code) assistant-ls--request-cancelled)
               (message "assistant-ls: ask cancelled; nothing applied")
             (message "assistant-ls: ask failed: %s"
                      (plist-get error :message))))))
      (message "assistant-ls: asking... (M-x assistant-ls-cancel stops it)")
      nil)))

(defun assistant-ls--offer (server text answer)
  "Use ANSWER, the `assistant/ask' result from SERVER for TEXT.
A lone text answer is shown; several candidates are offered, the
agents that failed named in the prompt.  Returns the `assistant/apply'
result, the answer buffer, or ANSWER when there is nothing to use."
  (let* ((id (plist-get answer :interactionId))
         (responses (plist-get answer :responses))
         (usable (seq-filter (lambda (r) (or (plist-get r :edit)
                                             (assistant-ls--text-answer-p r)))
                             responses))
         (failures (assistant-ls--failures responses))
         (show (lambda (response)
                 (prog1 (assistant-ls--show-answer
                         (assistant-ls--ask-title (plist-get answer :task) text)
                         (plist-get response :text)
                         (plist-get response :locations))
                   ;; Shown here, not by the server, which warns of the
                   ;; failed agents when it applies an answer.
                   (when failures
                     (message "assistant-ls: Used the answer of %s; %s."
                              (plist-get (plist-get response :agent) :name)
                              (string-join failures "; ")))))))
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
      (let* ((choices (mapcar (lambda (r) (cons (assistant-ls--label r) r))
                              usable))
             (prompt (format "%s (%s, %d candidate%s%s): "
                             (if (seq-some #'assistant-ls--text-answer-p usable)
                                 "Use"
                               "Apply")
                             (plist-get answer :task) (length choices)
                             (if (cdr choices) "s" "")
                             (if failures
                                 (concat "; " (string-join failures "; "))
                               "")))
             (picked (cdr (assoc (completing-read prompt choices nil t nil nil
                                                  (caar choices))
                                 choices))))
        (if (assistant-ls--text-answer-p picked)
            (funcall show picked)
          ;; The user has just chosen this edit: Eglot need not ask again.
          (let ((result (let ((eglot-confirm-server-initiated-edits nil))
                          (assistant-ls--request
                           server :assistant/apply
                           `(:interactionId ,id
                             :responseId ,(plist-get picked :id))))))
            (message "assistant-ls: %s" (or (plist-get result :message)
                                            (plist-get result :outcome)))
            result)))))))

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
    (seq-doseq (response (plist-get interaction :responses))
      (assistant-ls--describe-response response))
    (insert "\n")
    (put-text-property start (point) 'assistant-ls-interaction interaction)))

;;;###autoload
(defun assistant-ls-trace (&optional pos)
  "Show the assistant interactions behind the code at POS (or point).
They are shown in the buffer `*assistant-ls trace*', where
`assistant-ls-rate' and `assistant-ls-revert' act on the interaction
at point.  Returns that buffer, or nil when no interaction is found."
  (interactive)
  (let* ((server (assistant-ls--server))
         (interactions (assistant-ls--interactions-at server (or pos (point))))
         (source (buffer-name)))
    (if (null interactions)
        (progn (message "assistant-ls: no interaction produced the code here")
               nil)
      (with-current-buffer (get-buffer-create "*assistant-ls trace*")
        (let ((inhibit-read-only t))
          (erase-buffer)
          (special-mode)
          (setq assistant-ls--trace-server server)
          (insert (format "Interactions behind the code at point in %s\n\n"
                          source))
          (mapc #'assistant-ls--describe interactions)
          (goto-char (point-min))
          (forward-line 2))
        (display-buffer (current-buffer))
        (current-buffer)))))

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

(provide 'assistant-ls)

;;; assistant-ls.el ends here
