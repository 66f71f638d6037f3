# End-to-end check: listener and talker as two real processes; the listener must get 5 poses.
execute_process(COMMAND sh -c "BATON_NAMESPACE=example-ps-$$ ; export BATON_NAMESPACE; \
  '${BIN}' listener 5 > listener.out 2>&1 & L=$! ; '${BIN}' talker 8 > /dev/null; wait $L; \
  R=$?; cat listener.out; exit $R"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "pose 4:")
  message(FATAL_ERROR "listener did not receive 5 poses (rc=${rc})")
endif()
