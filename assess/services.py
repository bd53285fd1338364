"""The old name of assess.judging, kept while BOLT's modules (pooling/bolt.py, pooling/bolt_adjudication.py,
assess/bolt_views.py, assess/bolt_adjudication_views.py, the bolt_adjudicate command) still import it from here.
New code imports assess.judging."""
from assess.judging import (AlreadyDecided, Forbidden, JudgingError, NotInQueue, QuestionClosed,  # noqa: F401
                            Saved, StaleJudgment, assignment_role, claim_decision, invite, is_closed, load_item,
                            may_adjudicate, save_judgment)
