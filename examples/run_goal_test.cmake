# Runs run_goal as a user would, in a fresh workspace, with its models set the way a user sets
# them (RALPH_MODEL, RALPH_JUDGE_MODEL) to scripted stand-ins (no network, no key): the agent
# writes hello.txt wrong, the verify command fails, the second attempt fixes it, the judge passes.
# cmake -DPROGRAM=... -DSCRIPTS=... -DWORK=... -P run_goal_test.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{RALPH_MODEL} "scripted/${SCRIPTS}/hello_agent.json")
set(ENV{RALPH_JUDGE_MODEL} "scripted/${SCRIPTS}/hello_judge.json")
execute_process(COMMAND ${PROGRAM} "Write 'Hello, world!' to hello.txt."
                        "grep -qx 'Hello, world!' hello.txt"
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE code OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code EQUAL 0 OR NOT out MATCHES "completed, verified after 2 attempt")
  message(FATAL_ERROR "run_goal exited ${code}")
endif()
if(NOT out MATCHES "attempt 1: command: grep[^\n]* fail" OR NOT out MATCHES "attempt 2: judge")
  message(FATAL_ERROR "the verdicts printed are not the run's")
endif()
if(NOT EXISTS ${WORK}/.ralph/ralph.db)
  message(FATAL_ERROR "the session was not recorded")
endif()
file(REMOVE_RECURSE ${WORK})
